package as2_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/dataset/reqa"
	"github.com/as2/as2/model"
)

// TestDevRetrieval measures a vector model's MRR on a small pool (one
// question's answer found first, one's second: MRR 0.75), and refuses a pool file
// that is not there and a model that does not encode answers.
func TestDevRetrieval(t *testing.T) {
	pool := &reqa.Pool{Source: reqa.Source, Split: "dev", Questions: []reqa.Question{
		{ID: "q1", Text: "In France?", Gold: []string{"fr"}},
		{ID: "q2", Text: "Near France?", Gold: []string{"it"}},
	}}
	for i, id := range capitalIDs[:2] {
		pool.Answers = append(pool.Answers, reqa.Answer{ID: id, Text: capitalTexts[i]})
	}
	file := filepath.Join(t.TempDir(), "pool.jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		name, file string
		m          model.Model
		mrr        float64
		err        string
	}{
		// fakeVectors puts France's answer first for both questions
		// (both name France): q1 finds fr at 1, q2 it at 2.
		{"vectors", file, fakeVectors{fakeModel{arch: "dual"}}, 0.75, ""},
		{"no pool", filepath.Join(t.TempDir(), "missing.jsonl"), fakeVectors{fakeModel{arch: "dual"}}, 0, "missing.jsonl"},
		{"not a retriever", file, fakeModel{arch: "cosinet"}, 0, "does not encode answers"},
	} {
		measure, err := as2.DevRetrieval(tc.file, tc.m)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		mrr, err := measure(context.Background())
		if err != nil || math.Abs(mrr-tc.mrr) > 1e-9 {
			t.Errorf("%s: MRR %v (%v), want %v", tc.name, mrr, err, tc.mrr)
		}
	}
}
