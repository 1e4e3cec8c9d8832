package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
)

// TestRankPassages is the wiring of rank --document --passages: the
// library's ranking (as2.Passages, tested there and in package
// model/passage) printed as TSV and JSON, the cap reported, and the flags
// that do not go with it refused.
func TestRankPassages(t *testing.T) {
	const article = "../../serve/testdata/packet-switching.txt"
	raw, err := os.ReadFile(article)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	base := []string{"rank", "--ranker", "bm25", "--question", "Who developed DATAPAC?", "--document", article, "--passages"}
	const note = "24 passages, only the first 10 scored (--max-chunks 10"

	t.Run("tsv", func(t *testing.T) {
		out, err := run(t, append(base, "--top", "3")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, note) {
			t.Errorf("no note that the default cap cut the article:\n%s", out)
		}
		var rows []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, "as2: ") {
				rows = append(rows, l)
			}
		}
		if len(rows) != 4 || rows[0] != "rank\tscore\tstart\tend\tsentence\tpassage" {
			t.Fatalf("want a header and 3 passages:\n%s", out)
		}
		for _, row := range rows[1:] {
			f := strings.Split(row, "\t")
			if len(f) != 6 {
				t.Fatalf("row %q: %d columns, want 6", row, len(f))
			}
			start, err1 := strconv.Atoi(f[2])
			end, err2 := strconv.Atoi(f[3])
			if err1 != nil || err2 != nil || !strings.Contains(f[5], f[4]) || strings.Join(strings.Fields(doc[start:end]), " ") != strings.Join(strings.Fields(f[5]), " ") {
				t.Errorf("row %q: want rank, score, the passage's offsets, its best sentence and its text", row)
			}
		}
	})
	t.Run("json, no cap", func(t *testing.T) {
		out, err := run(t, append(base, "--max-chunks", "0", "--top", "1", "--format", "json")...)
		if err != nil {
			t.Fatal(err)
		}
		var got rankedPassages
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if got.Passages != 24 || got.Scored != 24 || got.Truncated || len(got.Ranking) != 1 {
			t.Fatalf("%+v: want 1 of 24 passages, all scored", got)
		}
		p := got.Ranking[0]
		if doc[p.Start:p.End] != p.Text || p.Sentence == nil || !strings.Contains(p.Sentence.Text, "Bell Northern Research") || doc[p.Sentence.Start:p.Sentence.End] != p.Sentence.Text {
			t.Errorf("best passage %+v: want the one that answers, at its offsets", p)
		}
	})
	t.Run("cross-encoder", func(t *testing.T) {
		// A Hugging Face folder (a tiny BERT of 64 positions) reads
		// passages of its own length, and names no sentence.
		args := []string{"rank", "--model", encodertest.BERTDir(t), "--question", "Who developed DATAPAC?", "--document", article, "--passages", "--format", "json", "--top", "3"}
		out, err := run(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var got rankedPassages
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if got.Passages <= 24 || got.Scored != 10 || !got.Truncated || len(got.Ranking) != 3 || !strings.Contains(out, "only the first 10 scored") {
			t.Fatalf("%d passages, %d scored, %d shown:\n%s\nwant more than 24, 10 scored and said so, 3 shown", got.Passages, got.Scored, len(got.Ranking), out)
		}
		for _, p := range got.Ranking {
			if p.Sentence != nil || doc[p.Start:p.End] != p.Text {
				t.Errorf("passage %+v: want its text at its offsets and no sentence", p)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		in := filepath.Join(t.TempDir(), "q.jsonl")
		os.WriteFile(in, []byte(emptyJSONL), 0o644)
		for _, tt := range []struct {
			args []string
			want string
		}{
			{append(base, "--max-chunks", "-1"), "--max-chunks -1: must be >= 0"},
			{append(base, "--format", "trec"), "with --passages give tsv or json"},
			{[]string{"rank", "--question", "q?", "--document", article, "--max-chunks", "3"}, "--max-chunks goes with --passages"},
			{[]string{"rank", "--input", in, "--passages"}, "--passages ranks the passages of --document"},
		} {
			if _, err := run(t, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%q: error %v, want %q", tt.args[len(tt.args)-2:], err, tt.want)
			}
		}
	})
}
