package evaluation

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/trec"
)

// FuzzWriteRun ranks one question with fuzzed scores (ties, infinities,
// NaN, neighbouring floats) and fuzzed empty candidates, writes the run,
// reads it back with trec.ReadRun and sorts it as trec_eval does: the order
// must be as2's, and every written score finite.
func FuzzWriteRun(f *testing.F) {
	le := func(vs ...float64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b
	}
	f.Add(le(1, 1, 1, 0.5), uint64(0), false)
	f.Add(le(0, 0, 0, 0, 0, 0), uint64(0b10110), true)
	f.Add(le(math.Inf(1), 2, math.Inf(-1), math.Inf(-1), math.NaN()), uint64(1), false)
	f.Add(le(math.Nextafter(1, 2), math.Nextafter(1, 2), 1, 1), uint64(0), true)
	f.Add(le(math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, 5e-324, 0), uint64(0), false)
	f.Fuzz(func(t *testing.T, raw []byte, emptyMask uint64, random bool) {
		n := min(len(raw)/8, 64)
		if n == 0 {
			return
		}
		scores := make([]float64, n)
		q := dataset.Question{ID: "q", Text: "x"}
		for i := range scores {
			scores[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			text := "c"
			if emptyMask&(1<<i) != 0 {
				text = " "
			}
			q.Candidates = append(q.Candidates, dataset.Candidate{ID: "d" + strconv.Itoa(i), Text: text, Position: i, Label: i % 2})
		}
		r := rank.Func(func(_ context.Context, sub *dataset.Question) ([]float64, error) {
			out := make([]float64, len(sub.Candidates))
			for i, c := range sub.Candidates {
				out[i] = scores[c.Position]
			}
			return out, nil
		})
		ties := ByPosition
		if random {
			ties = Random
		}
		rep, err := Evaluate(context.Background(), r, []dataset.Question{q}, Options{Ties: ties, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteRun(&buf, rep, "fuzz"); err != nil {
			t.Fatal(err)
		}
		run, err := trec.ReadRun(&buf, "written")
		if err != nil {
			t.Fatalf("reading the written run: %v", err)
		}
		got := run.Results["q"]
		trec.Sort(got)
		ranked := rep.Rankings[0].Ranked
		if len(got) != len(ranked) {
			t.Fatalf("%d results written, %d ranked", len(got), len(ranked))
		}
		for k, s := range ranked {
			if got[k].DocID != q.Candidates[s.Index].ID || got[k].Rank != k+1 {
				t.Fatalf("place %d: trec_eval's order has %s (rank %d), as2's %s", k+1, got[k].DocID, got[k].Rank, q.Candidates[s.Index].ID)
			}
			if math.IsInf(got[k].Score, 0) || math.IsNaN(got[k].Score) {
				t.Fatalf("place %d: score %v written", k+1, got[k].Score)
			}
		}
	})
}
