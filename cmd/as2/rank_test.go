package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/trec"
)

// emptyJSONL has an empty and a white-space candidate between real ones,
// and a question whose only candidate is empty.
const emptyJSONL = `{"id": "q1", "question": "who wrote hamlet?", "candidates": [{"id": "s0", "text": "", "label": 0}, {"id": "s1", "text": "It is a play.", "label": 0}, {"id": "s2", "text": "  ", "label": 1}, {"id": "s3", "text": "Shakespeare wrote Hamlet.", "label": 1}]}
{"id": "q2", "question": "what is it?", "candidates": [{"id": "t0", "text": " ", "label": 0}]}
`

func TestRankFormats(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "q.jsonl")
	os.WriteFile(in, []byte(emptyJSONL), 0o644)
	outFile := filepath.Join(dir, "out")
	read := func() string {
		raw, err := os.ReadFile(outFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	for _, tc := range []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{"", func(t *testing.T, out string) { // json
			var q1 evaluation.RankedQuestion
			if err := json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &q1); err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, c := range q1.Ranking {
				order = append(order, c.ID)
			}
			if strings.Join(order, " ") != "s3 s1 s0 s2" || q1.Ranking[0].Score == nil || q1.Ranking[2].Score != nil {
				t.Fatalf("q1: %+v", q1)
			}
		}},
		{"tsv", func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 6 || lines[0] != "qid\trank\tscore\tsentence" || !strings.HasPrefix(lines[1], "q1\t1\t") ||
				!strings.HasSuffix(lines[1], "Shakespeare wrote Hamlet.") || lines[3] != "q1\t3\t-Inf\t" || !strings.HasPrefix(lines[5], "q2\t1\t-Inf") {
				t.Fatalf("tsv:\n%s", out)
			}
		}},
		{"trec", func(t *testing.T, out string) {
			run, err := trec.ReadRun(strings.NewReader(out), "run")
			if err != nil {
				t.Fatal(err)
			}
			rs := run.Results["q1"]
			if len(rs) != 4 || rs[0].DocID != "s3" || rs[3].DocID != "s2" || rs[0].Tag != "wo+rr" || len(run.Results["q2"]) != 1 {
				t.Fatalf("run:\n%s", out)
			}
			for k := 1; k < len(rs); k++ {
				if !(rs[k].Score < rs[k-1].Score) || math.IsInf(rs[k].Score, 0) {
					t.Fatalf("scores not finite and strictly decreasing:\n%s", out)
				}
			}
		}},
	} {
		t.Run("format="+tc.format, func(t *testing.T) {
			args := []string{"rank", "--ranker", "wo+rr", "--input", in, "--output", outFile}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			msg, err := run(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(msg, "warning: "+in+": kept 3 empty or white-space candidates as never relevant") {
				t.Fatalf("no warning counting the empty candidates: %q", msg)
			}
			tc.check(t, read())
		})
	}
	t.Run("document", func(t *testing.T) {
		doc := filepath.Join(dir, "doc.txt")
		os.WriteFile(doc, []byte("Hamlet is a play. Shakespeare wrote Hamlet."), 0o644)
		for format, want := range map[string]string{
			"tsv":  "rank\tscore\tsentence\n1\t",
			"json": `{"id":"1","question":"who wrote hamlet?","ranking":[{"rank":1,"index":1`,
			"trec": "1 Q0 1 1 ",
		} {
			out, err := run(t, "rank", "--ranker", "wo+rr", "--question", "who wrote hamlet?", "--document", doc, "--format", format)
			if err != nil || !strings.HasPrefix(out, want) {
				t.Errorf("--format %s: %v\n%s", format, err, out)
			}
		}
	})
	t.Run("calibration", func(t *testing.T) {
		doc, cal := filepath.Join(dir, "doc.txt"), filepath.Join(dir, "cal.json")
		os.WriteFile(doc, []byte("Hamlet is a play. Shakespeare wrote Hamlet."), 0o644)
		os.WriteFile(cal, []byte(`{"a":1,"b":0,"threshold":0.5}`), 0o644)
		out, err := run(t, "rank", "--ranker", "wo+rr", "--question", "who wrote hamlet?", "--document", doc, "--calibration", cal)
		if err != nil || !strings.Contains(out, "\tyes\t") {
			t.Fatalf("--calibration: %v\n%s", err, out)
		}
		os.WriteFile(cal, []byte(`{"a":1,"b":0}`), 0o644)
		_, err = run(t, "rank", "--ranker", "wo+rr", "--question", "who wrote hamlet?", "--document", doc, "--calibration", cal)
		if err == nil || !strings.Contains(err.Error(), "--calibration: "+cal+`: calibration: no "threshold"`) {
			t.Fatalf("a calibration without its threshold: %v", err)
		}
	})
	t.Run("error", func(t *testing.T) {
		_, err := run(t, "rank", "--input", in, "--empty", "error")
		if err == nil || !strings.Contains(err.Error(), `q.jsonl:1: question "q1": candidate 0 (id "s0"): empty text`) {
			t.Fatalf("--empty error: %v", err)
		}
	})
	t.Run("skip", func(t *testing.T) {
		msg, err := run(t, "rank", "--ranker", "wo+rr", "--input", in, "--empty", "skip", "--output", outFile)
		if err != nil || !strings.Contains(msg, "skipped 3 empty or white-space candidates (1 of them labelled relevant) and 1 questions left without candidates") {
			t.Fatalf("--empty skip: %v, %q", err, msg)
		}
		var q1 evaluation.RankedQuestion
		json.Unmarshal([]byte(strings.Split(read(), "\n")[0]), &q1)
		if len(q1.Ranking) != 2 || q1.Ranking[0].Index != 1 || q1.Ranking[0].ID != "s3" {
			t.Fatalf("skip: %+v", q1)
		}
	})
}

// TestEvalEmpty evaluates a file with empty candidates under each policy:
// kept ones are never relevant and rank last, so q1's relevant empty
// candidate counts for nothing; skipped ones leave the other positions.
func TestEvalEmpty(t *testing.T) {
	in := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(in, []byte(emptyJSONL), 0o644)
	for _, tc := range []struct {
		policy string
		want   string
	}{
		{"keep", `"questions":1,"metrics":{"map":1,"p@1":1}`},
		{"skip", `"questions":1,"metrics":{"map":1,"p@1":1}`},
	} {
		out, err := run(t, "eval", "--dataset", "jsonl", "--path", in, "--empty", tc.policy, "--metrics", "map,p@1", "--format", "json")
		// eval ranks with the built-in model by default, as rank and
		// serve do.
		if err != nil || !strings.Contains(out, tc.want) || !strings.Contains(out, "warning") || !strings.Contains(out, `"ranker":"builtin"`) {
			t.Errorf("--empty %s: %v\n%s", tc.policy, err, out)
		}
	}
	out, err := run(t, "eval", "--dataset", "jsonl", "--path", in, "--subset", "all", "--metrics", "map", "--format", "json")
	if err != nil || !strings.Contains(out, `"questions":2,"metrics":{"map":0.5}`) {
		t.Errorf("--subset all: %v\n%s", err, out)
	}
	if _, err := run(t, "eval", "--dataset", "jsonl", "--path", in, "--empty", "error"); err == nil || !strings.Contains(err.Error(), "q.jsonl:1:") {
		t.Errorf("--empty error: %v", err)
	}
}
