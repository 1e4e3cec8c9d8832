package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/internal/shareddata"
)

// run executes the as2 command in-process and returns its output and error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question": "q", "candidates": ["a"]}`+"\n"+`{"question": "q", "candidates": [{"text": "a", "label": 7}]}`+"\n"), 0o644)
	doc := filepath.Join(dir, "doc.txt")
	os.WriteFile(doc, []byte("Only one sentence."), 0o644)
	binary := filepath.Join(dir, "bin.txt")
	os.WriteFile(binary, []byte{0xff, 0xfe, 'a'}, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval"}, "give --dataset"},
		{[]string{"eval", "--dataset", "nosuch", "--path", dir}, `unknown dataset "nosuch"`},
		{[]string{"eval", "--dataset", "wikiqa", "--path", dir, "--subset", "most"}, `--subset: unknown subset "most"`},
		{[]string{"eval", "--dataset", "wikiqa", "--path", dir, "--split", "valid"}, `unknown split "valid"`},
		{[]string{"eval", "--dataset", "jsonl", "--path", bad}, "bad.jsonl:2: candidate 0: label 7 is not 0 or 1"},
		{[]string{"eval", "--dataset", "jsonl", "--path", filepath.Join(dir, "missing.jsonl")}, "missing.jsonl: file not found"},
		{[]string{"eval", "--dataset", "jsonl", "--path", bad, "--empty", "drop"}, `--empty: unknown policy "drop"`},
		{[]string{"eval", "--qrels", filepath.Join(dir, "missing.qrels"), "--run", bad}, "--qrels " + filepath.Join(dir, "missing.qrels") + ": file not found"},
		{[]string{"eval", "--qrels", bad, "--run", filepath.Join(dir, "missing.run")}, "bad.jsonl:1"},
		{[]string{"rank", "--input", filepath.Join(dir, "missing.jsonl")}, "--input " + filepath.Join(dir, "missing.jsonl") + ": file not found"},
		{[]string{"rank", "--question", "q", "--document", filepath.Join(dir, "missing.txt")}, "--document " + filepath.Join(dir, "missing.txt") + ": file not found"},
		{[]string{"rank", "--question", "q", "--document", doc, "--model", filepath.Join(dir, "missing.as2")}, "--model " + filepath.Join(dir, "missing.as2") + ": file not found"},
		{[]string{"rank", "--question", "q", "--document", doc, "--cascade", "bm25:2,x=" + filepath.Join(dir, "m.as2") + ":1"}, "m.as2: file not found"},
		{[]string{"rank", "--question", "q", "--document", doc, "--model", filepath.Join(dir, "missing.as2"), "--ranker", "bm25"}, "--ranker bm25 does not go with --model"},
		{[]string{"rank", "--question", "q", "--document", doc, "--cascade", "bm25:2,rr", "--ranker", "wo"}, "--ranker wo does not go with --cascade"},
		{[]string{"eval", "--dataset", "jsonl", "--path", bad, "--model", "m.as2", "--ranker", "wo+rr"}, "--ranker wo+rr does not go with --model"},
		{[]string{"rank", "--question", "q", "--document", doc, "--format", "xml"}, `--format "xml": want tsv, json or trec`},
		{[]string{"rank", "--input", bad, "--empty", "drop"}, `--empty: unknown policy "drop"`},
		{[]string{"eval", "--dataset", "jsonl", "--path", bad, "--format", "xml"}, `--format "xml"`},
		{[]string{"eval", "--dataset", "jsonl", "--path", bad, "--metrics", "map,p@0"}, "--metrics"},
		{[]string{"eval", "--qrels", bad}, "--qrels needs --run"},
		{[]string{"eval", "--qrels", bad, "--run", bad}, "bad.jsonl:1"},
		{[]string{"eval", "--dataset", "wikiqa", "--path", dir, "--ties", "worst"}, `--ties: unknown tie-break "worst"`},
		{[]string{"rank", "--question", "q"}, "give --question and --document"},
		{[]string{"rank", "--document", doc}, "needs a non-empty --question"},
		{[]string{"rank", "--question", "q", "--document", binary}, "not valid UTF-8"},
		{[]string{"rank", "--question", "q", "--document", doc, "--ranker", "magic"}, `--ranker magic: unknown ranker "magic"`},
		{[]string{"rank", "--question", "q", "--document", doc, "--bm25-b", "2"}, "--bm25-b 2"},
		{[]string{"rank", "--question", "q", "--document", doc, "--idf", "web"}, `--idf "web"`},
		{[]string{"rank", "--input", bad}, "bad.jsonl:2"},
		{[]string{"rank", "--input", bad, "--top", "-1"}, "--top -1"},
		{[]string{"data", "stats", "--dataset", "squad", "--path", bad}, "bad.jsonl: not SQuAD JSON"},
		{[]string{"eval", "--subset"}, "flag needs an argument"},
		{[]string{"trigger", "--dataset", "jsonl", "--path", bad, "--format", "csv"}, `--format "csv": want table or json`},
		{[]string{"rank", "--question", "q", "--document", doc, "--ranker", "wo", "--calibration", "builtin"}, "--calibration builtin is the built-in model's"},
		{[]string{"rank", "--question", "q", "--document", doc, "--ranker", "wo", "--calibration", filepath.Join(dir, "none.json")}, "--calibration " + filepath.Join(dir, "none.json") + ": file not found"},
		{[]string{"rank", "--question", "q", "--document", doc, "--raw-scores", "--calibration", "builtin"}, "--raw-scores and --calibration: give one"},
		{[]string{"rank", "--input", bad, "--input-format", "csv"}, `--input-format "csv": want jsonl or tsv`},
	} {
		_, err := run(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestRankDocument ranks a document with the built-in model, the default:
// calibrated scores, best first, a column that says which sentences
// answer, and "no answer" for a question the document does not answer.
func TestRankDocument(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.txt")
	os.WriteFile(doc, []byte("The Berlin Wall was built in 1961. It fell on 9 November 1989. Berlin is the capital of Germany."), 0o644)
	out, err := run(t, "rank", "--question", "When did the Berlin Wall fall?", "--document", doc, "--top", "2")
	if err != nil {
		t.Fatal(err)
	}
	// The format; how well the model ranks is measured in model/builtin.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || lines[0] != "rank\tscore\tanswer\tsentence" || !strings.HasPrefix(lines[1], "1\t") || !strings.HasPrefix(lines[2], "2\t") {
		t.Fatalf("output:\n%s", out)
	}
	prev := 1.0
	for k, l := range lines[1:] {
		f := strings.Split(l, "\t")
		p, err := strconv.ParseFloat(f[1], 64)
		// Only the best sentence can be the answer: the calibration judges
		// a document's best.
		answer := (k == 0 && (f[2] == "yes" || f[2] == "no")) || (k > 0 && f[2] == "-")
		if err != nil || p < 0 || p > prev || len(f) != 4 || !answer {
			t.Fatalf("line %q: want a probability, no higher than the one above, and yes or no for the first, - after it", l)
		}
		prev = p
	}
	out, err = run(t, "rank", "--question", "How do penguins keep their eggs warm?", "--document", doc, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "as2: no answer:") || !strings.Contains(out, `"answer":false`) {
		t.Fatalf("no answer expected:\n%s", out)
	}
	out, err = run(t, "rank", "--question", "When did the Berlin Wall fall?", "--document", doc, "--raw-scores")
	if err != nil || !strings.HasPrefix(out, "rank\tscore\tsentence\n1\t") {
		t.Fatalf("--raw-scores: %v\n%s", err, out)
	}
}

func TestRankJSONL(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "q.jsonl")
	os.WriteFile(in, []byte(`{"id": "q7", "question": "who wrote hamlet?", "candidates": ["It is a play.", "Shakespeare wrote Hamlet."]}`+"\n"), 0o644)
	outFile := filepath.Join(dir, "out.jsonl")
	if _, err := run(t, "rank", "--input", in, "--output", outFile); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(outFile)
	var got evaluation.RankedQuestion
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "q7" || len(got.Ranking) != 2 || got.Ranking[0].Index != 1 || got.Ranking[0].Rank != 1 {
		t.Fatalf("got %+v", got)
	}
}

// TestEvalJSONShape checks the documented JSON shape on the real WikiQA test
// set, and that a written run and qrels evaluate to the same numbers through
// the trec_eval path.
func TestEvalJSONShape(t *testing.T) {
	data := shareddata.Dir(t)
	dir := t.TempDir()
	runFile, qrelsFile := filepath.Join(dir, "wo.run"), filepath.Join(dir, "wo.qrels")
	out, err := run(t, "eval", "--dataset", "wikiqa", "--path", filepath.Join(data, "wikiqa"), "--split", "test",
		"--subset", "answered", "--ranker", "wo+rr", "--metrics", "map,mrr,p@1", "--format", "json",
		"--run", runFile, "--write-qrels", qrelsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `{"dataset":"wikiqa","split":"test","subset":"answered","ranker":"wo+rr","questions":243,"metrics":{"map":0.`) {
		t.Fatalf("JSON shape: %s", out)
	}
	var own evaluation.Summary
	json.Unmarshal([]byte(out), &own)
	out, err = run(t, "eval", "--qrels", qrelsFile, "--run", runFile, "--metrics", "map,mrr,p@1", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var viaTrec evaluation.Summary
	json.Unmarshal([]byte(out), &viaTrec)
	if viaTrec.Questions != 243 || len(own.Metrics) != 3 {
		t.Fatalf("trec path: %s", out)
	}
	for k, v := range own.Metrics {
		if viaTrec.Metrics[k] != v {
			t.Errorf("%s: %v from as2, %v from its run file", k, v, viaTrec.Metrics[k])
		}
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--ranker", "nameonly"}, `want NAME=SPEC`},
		{[]string{"serve", "--ranker", "a=wo", "--ranker", "a=bm25"}, "given twice"},
		{[]string{"serve", "--ranker", "a=magic"}, `unknown ranker "magic"`},
		{[]string{"serve", "--max-documents", "0"}, "must be positive"},
		{[]string{"serve", "--addr", "256.0.0.1:99999"}, "--addr"},
		{[]string{"serve", "--cascade", "fast"}, "want NAME=STAGE:K"},
		{[]string{"serve", "--calibration", "x"}, "want NAME=FILE"},
		{[]string{"serve", "--calibration", "wo+rr=/nonexistent.json"}, "no such file"},
		{[]string{"serve", "--cascade", "fast=bm25:0"}, "--cascade"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestServeConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	good := write("good.yaml", "addr: 256.0.0.1:99999\nrankers:\n  a: wo+rr\ncascades:\n  fast: \"bm25:5,rr\"\nlimits:\n  max_documents: 10\n  timeout: 2s\ngrace: 1s\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--config", write("unknown.yaml", "adress: x\n")}, "field adress not found"},
		{[]string{"serve", "--config", write("bad.yaml", "rankers:\n  a: magic\n")}, `unknown ranker "magic"`},
		{[]string{"serve", "--config", write("limits.yaml", "limits:\n  max_text: -1\n")}, "must be positive"},
		{[]string{"serve", "--config", filepath.Join(dir, "missing.yaml")}, "no such file"},
		// A good file gets as far as listening on its (impossible) address.
		{[]string{"serve", "--config", good}, "--addr"},
		{[]string{"serve", "--config", good, "--ranker", "a=rr"}, "the name a is given twice"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
