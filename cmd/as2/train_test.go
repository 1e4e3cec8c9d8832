package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/model"
	"github.com/as2/as2/model/cosinet"
)

// writeTinyData writes a JSONL dataset and GloVe-format vectors in which
// the answer to "who wrote X?" is always the sentence naming the writer.
func writeTinyData(t *testing.T) (data, vectors string) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 24; i++ {
		fmt.Fprintf(&b, `{"id": "q%d", "question": "who wrote book%d ?", "candidates": [{"text": "book%d is long .", "label": 0}, {"text": "writer%d wrote book%d .", "label": 1}, {"text": "it sold well .", "label": 0}]}`+"\n", i, i, i, i%5, i)
	}
	data = filepath.Join(dir, "train.jsonl")
	os.WriteFile(data, []byte(b.String()), 0o644)
	b.Reset()
	words := []string{"who", "wrote", "is", "long", "it", "sold", "well", ".", "?"}
	for i := 0; i < 24; i++ {
		words = append(words, fmt.Sprintf("book%d", i))
	}
	for i := 0; i < 5; i++ {
		words = append(words, fmt.Sprintf("writer%d", i))
	}
	for i, w := range words {
		fmt.Fprintf(&b, "%s %g %g %g %g\n", w, float64(i%3)-1, float64(i%5)/4, float64(i%7)/7-0.5, 0.25)
	}
	vectors = filepath.Join(dir, "vectors.txt")
	os.WriteFile(vectors, []byte(b.String()), 0o644)
	return data, vectors
}

// TestTrainEvalRank runs the whole neural path through the command line:
// embeddings import, train (saving a model), eval and rank with it, and
// bench, on tiny data the test writes.
func TestTrainEvalRank(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	emb, model := filepath.Join(dir, "v.emb"), filepath.Join(dir, "m.as2")
	if out, err := run(t, "embeddings", "import", "--from", vectors, "--out", emb); err != nil || !strings.Contains(out, "imported 38 words x 4") {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"--listwise", "--rnn", "birnn"},
		{"--rnn", "none", "--paper"},
		{"--listwise", "--rnn", "lstm", "--dev-split", "none"},
	} {
		full := append([]string{"train", "--dataset", "jsonl", "--path", data, "--dev-path", data, "--embeddings", emb,
			"--filters", "8", "--kernel", "3", "--epochs", "2", "--out", model}, args...)
		out, err := run(t, full...)
		if err != nil || !strings.Contains(out, "trained cosinet") || !strings.Contains(out, "saved "+model) {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(full, " "), err, out)
		}
	}
	// The compare-aggregate family through the same commands, then transfer:
	// --init continues from the saved model.
	ca := filepath.Join(dir, "ca.as2")
	for _, args := range [][]string{
		{"--arch", "ca", "--listwise", "--rnn", "birnn", "--out", ca},
		{"--model", "compclip", "--clusters", "4", "--cluster-k", "2", "--clip-k", "2", "--keep-best", "--out", ca}, // --model: the deprecated alias of --arch
		{"--arch", "compclip", "--attention-clip", "threshold", "--clip-threshold", "0.3", "--exact-match", "--objective", "triplet", "--out", ca},
		{"--init", ca, "--epochs", "1", "--out", ca},
	} {
		full := append([]string{"train", "--dataset", "jsonl", "--path", data, "--dev-path", data, "--embeddings", emb,
			"--hidden", "6", "--filters", "4", "--widths", "1,2", "--epochs", "2"}, args...)
		if args[0] == "--init" {
			full = append([]string{"train", "--dataset", "jsonl", "--path", data, "--dev-path", data}, args...)
		}
		out, err := run(t, full...)
		if err != nil || !strings.Contains(out, "trained ") || !strings.Contains(out, "saved "+ca) {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(full, " "), err, out)
		}
	}
	if out, err := run(t, "eval", "--model", ca, "--dataset", "jsonl", "--path", data); err != nil || !strings.Contains(out, "compclip") && !strings.Contains(out, ca) {
		t.Fatalf("eval compclip: %v\n%s", err, out)
	}
	out, err := run(t, "eval", "--model", model, "--dataset", "jsonl", "--path", data, "--format", "json")
	if err != nil || !strings.Contains(out, `"questions":24`) || !strings.Contains(out, `"ranker":"`+model) {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	out, err = run(t, "rank", "--model", model, "--input", data, "--top", "1")
	if err != nil || strings.Count(out, "\n") != 24 {
		t.Fatalf("rank: %v\n%s", err, out)
	}
	out, err = run(t, "bench", "infer", "--model", model, "--dataset", "jsonl", "--path", data, "--repeat", "1", "--concurrency", "2")
	if err != nil || !strings.Contains(out, "pairs/s") {
		t.Fatalf("bench infer: %v\n%s", err, out)
	}
	out, err = run(t, "bench", "serve", "--model", model, "--dataset", "jsonl", "--path", data, "--documents", "10", "--requests", "10", "--clients", "1,2")
	if err != nil || strings.Count(out, "\n") != 4 {
		t.Fatalf("bench serve: %v\n%s", err, out)
	}
}

func TestTrainBadInput(t *testing.T) {
	data, vectors := writeTinyData(t)
	out := filepath.Join(t.TempDir(), "m.as2")
	base := []string{"train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--out", out}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--dataset", "jsonl", "--path", data}, "--out is required"},
		{append(base, "--epochs", "0"), "--epochs 0"},
		{append(base, "--batch", "0"), "--batch 0"},
		{append(base, "--lr", "-1"), "--lr -1"},
		{append(base, "--rnn", "transformer"), `rnn "transformer"`},
		{append(base, "--arch", "bert"), `--arch: architecture "bert" is unknown`},
		{append(base, "--model", "bert"), `--arch: architecture "bert" is unknown`},
		{append(base, "--objective", "ranknet"), `--objective "ranknet": want one of`},
		{append(base, "--objective", "pointwise", "--listwise"), "give one"},
		{append(base, "--embeddings", data), "--embeddings"},
		{append(base, "--filters", "0"), "filters 0"},
		{append(base, "--arch", "ca", "--kernel", "3"), "--kernel does not apply to architecture ca (only to cosinet)"},
		{append(base, "--clusters", "8"), "--clusters does not apply to architecture cosinet"},
		{append(base, "--arch", "ca", "--widths", "1,x"), `--widths`},
		{append(base, "--arch", "compclip", "--clusters", "4", "--cluster-k", "5"), "cluster k 5"},
		{append(base, "--arch", "compclip", "--attention-clip", "top"), `clip "top"`},
		{append(base, "--keep-best", "--dev-split", "none"), "--keep-best needs a dev split"},
		{append(base, "--keep-best"), "--keep-best needs a dev split"},
		{append(base, "--dev-split", "dev"), "has no splits; give the dev file with --dev-path"},
		{[]string{"train", "--dataset", "wikiqa", "--path", data, "--dev-path", data, "--out", out}, "--dev-path is for the jsonl and tsv datasets"},
		{append(base, "--clip", "-2"), "--clip -2"},
		{append(base, "--negatives", "-1"), "--negatives -1"},
		{append(base, "--train-subset", "some"), "--train-subset"},
		{append(base, "--init", data), "model to train further: " + data},
		{append(base, "--init-encoder", data), "--init-encoder: " + data},
		{append(base, "--init-encoder", data, "--init", data), "--init-encoder: not with --init"},
		{append(base, "--arch", "dual", "--objective", "shared-answer-softmax", "--distill", "wo"), `--objective "shared-answer-softmax": not with a teacher (distill)`},
		{append(base, "--distill-weight", "2"), "are for --distill"},
		{append(base, "--distill", "wo", "--distill-temperature", "0"), "--distill-temperature 0: want more than 0"},
		{append(base, "--recipe", data), "recipe " + data + ": "},
		{append(base, "--encoder", "glove"), `--encoder "glove": want static`},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("as2 %s left a model file behind", strings.Join(tc.args, " "))
		}
	}
}

// TestAugmentAndCascade builds an augmented pool and ranks it with a
// cascade of a rule-based ranker and a trained model.
func TestAugmentAndCascade(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	model, aug := filepath.Join(dir, "m.as2"), filepath.Join(dir, "aug.jsonl")
	if out, err := run(t, "train", "--dataset", "jsonl", "--path", data, "--embeddings", vectors, "--filters", "8", "--kernel", "3",
		"--epochs", "1", "--dev-split", "none", "--out", model); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	if out, err := run(t, "data", "augment", "--dataset", "jsonl", "--path", data, "--size", "10", "--out", aug); err != nil {
		t.Fatalf("augment: %v\n%s", err, out)
	}
	out, err := run(t, "eval", "--dataset", "jsonl", "--path", aug, "--cascade", "bm25:4,tiny="+model+":1", "--format", "json")
	if err != nil || !strings.Contains(out, `"questions":24`) || !strings.Contains(out, `"ranker":"cascade bm25:4,tiny=`) {
		t.Fatalf("eval --cascade: %v\n%s", err, out)
	}
	out, err = run(t, "tune", "cascade", "--dataset", "jsonl", "--path", aug, "--dev-path", aug, "--last", model, "--k", "2,5", "--target", "0.5")
	if err != nil || !strings.Contains(out, "chosen on dev (24 questions)") || !strings.Contains(out, "test (24 questions)") {
		t.Fatalf("tune cascade: %v\n%s", err, out)
	}
	if _, err := run(t, "tune", "cascade", "--dataset", "jsonl", "--path", aug, "--last", model, "--target", "2"); err == nil || !strings.Contains(err.Error(), "--target") {
		t.Fatalf("tune cascade --target 2: %v", err)
	}
	plot := filepath.Join(dir, "sweep")
	out, err = run(t, "bench", "cascade", "--dataset", "jsonl", "--path", aug, "--last", model, "--k", "2,5", "--plot", plot)
	if err != nil || !strings.Contains(out, "% of last-stage P@1") {
		t.Fatalf("bench cascade: %v\n%s", err, out)
	}
	if _, err := os.Stat(plot + ".svg"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "cascade", "--dataset", "jsonl", "--path", aug}, "--last is required"},
		{[]string{"bench", "cascade", "--dataset", "jsonl", "--path", aug, "--last", model, "--k", "0"}, "--k"},
		{[]string{"eval", "--dataset", "jsonl", "--path", aug, "--cascade", "bm25:0"}, "--cascade"},
		{[]string{"eval", "--dataset", "jsonl", "--path", aug, "--cascade", "x=" + aug + ":2"}, "--cascade"},
		{[]string{"eval", "--dataset", "jsonl", "--path", aug, "--cascade", "bm25:2", "--model", model}, "give one"},
		{[]string{"data", "augment", "--dataset", "jsonl", "--path", data, "--size", "1000", "--out", aug}, "too few distinct sentences"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestTrigger(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "q.jsonl")
	var b strings.Builder
	for i := 0; i < 30; i++ {
		label := 0
		if i%2 == 0 {
			label = 1
		}
		// Answerable questions share words with their first candidate.
		text := "nothing in common"
		if label == 1 {
			text = fmt.Sprintf("topic%d answer here", i)
		}
		fmt.Fprintf(&b, `{"id": "q%d", "question": "what about topic%d ?", "candidates": [{"text": %q, "label": %d}, {"text": "filler words", "label": 0}]}`+"\n", i, i, text, label)
	}
	os.WriteFile(data, []byte(b.String()), 0o644)
	cal := filepath.Join(dir, "cal.json")
	out, err := run(t, "trigger", "--dataset", "jsonl", "--path", data, "--ranker", "wo", "--out", cal)
	if err != nil || !strings.Contains(out, "F1 100.00") {
		t.Fatalf("trigger: %v\n%s", err, out)
	}
	if raw, err := os.ReadFile(cal); err != nil || !strings.Contains(string(raw), `"threshold"`) {
		t.Fatalf("calibration file: %v %s", err, raw)
	}
	if _, err := run(t, "trigger", "--ranker", "wo"); err == nil || !strings.Contains(err.Error(), "--dataset is required") {
		t.Fatalf("no dataset: %v", err)
	}
	// --calibration measures a given calibration on --split, fitting none.
	out, err = run(t, "trigger", "--dataset", "jsonl", "--path", data, "--ranker", "wo", "--calibration", cal)
	if err != nil || !strings.Contains(out, "F1 100.00") || !strings.Contains(out, "(--calibration "+cal+")") || strings.Count(out, "F1") != 1 {
		t.Fatalf("trigger --calibration: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--calibration", cal, "--out", cal}, "--fit-split and --out do not apply"},
		{[]string{"--calibration", cal, "--fit-split", "test"}, "--fit-split and --out do not apply"},
		{[]string{"--calibration", "builtin"}, "rank with --ranker builtin"},
		{[]string{"--calibration", data}, "--calibration: "},
	} {
		args := append([]string{"trigger", "--dataset", "jsonl", "--path", data, "--ranker", "wo"}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(args, " "), err, tc.want)
		}
	}
}

// TestTrainInitMismatch: --init refuses another architecture, settings that
// contradict the file, and word vectors other than the model's.
func TestTrainInitMismatch(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	m := filepath.Join(dir, "cc.as2")
	if out, err := run(t, "train", "--arch", "compclip", "--dataset", "jsonl", "--path", data, "--embeddings", vectors,
		"--hidden", "4", "--filters", "2", "--widths", "1", "--epochs", "1", "--dev-split", "none", "--out", m); err != nil {
		t.Fatalf("train: %v\n%s", err, out)
	}
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("who 1 2 3 4\nwrote 4 3 2 1\n"), 0o644)
	out := filepath.Join(dir, "tl.as2")
	base := []string{"train", "--dataset", "jsonl", "--path", data, "--dev-split", "none", "--init", m, "--out", out}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(base, "--arch", "ca"), "is a compclip model, not a ca one"},
		{append(base, "--clusters", "8"), "--clusters: the model " + m + " keeps its architecture's settings"},
		{append(base, "--embeddings", other), "a different vocabulary"},
	} {
		if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(tc.args, " "), err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("as2 %s left a model file behind", strings.Join(tc.args, " "))
		}
	}
}

// TestTrainHelpGivesEveryRecipe checks that the training flags' help names
// each registered architecture's recipe value, so it follows the registry.
func TestTrainHelpGivesEveryRecipe(t *testing.T) {
	out, err := run(t, "train", "--help")
	if err != nil {
		t.Fatal(err)
	}
	line := func(flag string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "--"+flag+" ") {
				return l
			}
		}
		t.Fatalf("no --%s in the help", flag)
		return ""
	}
	epochs, keep := line("epochs"), line("keep-best")
	for _, a := range model.Architectures() {
		r := a.Recipe(false, model.Pointwise).Training
		for _, c := range []struct{ flag, text, want string }{
			{"epochs", epochs, fmt.Sprintf("%d", r.Epochs)},
			{"keep-best", keep, fmt.Sprintf("%t", r.KeepBest)},
		} {
			// The architecture's name is followed, after any others
			// sharing its value, by that value.
			i := strings.Index(c.text, a.Name())
			if i < 0 {
				t.Errorf("--%s's help does not name %s: %s", c.flag, a.Name(), c.text)
				continue
			}
			rest := c.text[i:]
			if end := strings.IndexAny(rest, ";)"); end < 0 || !strings.HasSuffix(strings.TrimSpace(rest[:end]), " "+c.want) {
				t.Errorf("--%s's help gives %s another value than its recipe's %s: %s", c.flag, a.Name(), c.want, c.text)
			}
		}
	}
}

// TestTrainRecipe: --print-recipe prints the recipe the flags give, which
// --recipe reads back to the same recipe and the same training; flags
// override the file; as2 train recipe prints the registered ones.
func TestTrainRecipe(t *testing.T) {
	data, vectors := writeTinyData(t)
	dir := t.TempDir()
	flags := []string{"--arch", "cosinet", "--listwise", "--set", "hyperparameters.filters=4", "--set", "hyperparameters.kernel=2",
		"--set", "hyperparameters.rnn=none", "--epochs", "1", "--seed", "3", "--set", "training.clip=2"}
	printed, err := run(t, append([]string{"train", "--print-recipe"}, flags...)...)
	if err != nil {
		t.Fatalf("--print-recipe: %v\n%s", err, printed)
	}
	r, err := model.ReadRecipe([]byte(printed))
	if err != nil {
		t.Fatalf("the printed recipe does not read back: %v\n%s", err, printed)
	}
	h := r.Hyper.(*cosinet.Hyper)
	if r.Architecture != "cosinet" || h.Filters != 4 || h.Kernel != 2 || h.RNN != "none" || !h.ExactMatch ||
		r.Training.Objective != "listwise" || r.Training.LR != 2e-4 || r.Training.Epochs != 1 || r.Training.Seed != 3 || r.Training.Clip != 2 {
		t.Fatalf("printed recipe %+v %+v", r, h)
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, []byte(printed), 0o644)
	if again, err := run(t, "train", "--recipe", file, "--print-recipe"); err != nil || again != printed {
		t.Fatalf("--recipe --print-recipe: %v\n%s\nwant\n%s", err, again, printed)
	}
	// Flags given override the file's fields, and only those.
	over, err := run(t, "train", "--recipe", file, "--epochs", "2", "--set", "hyperparameters.dropout=0.25", "--print-recipe")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(printed, `"epochs": 1`, `"epochs": 2`, 1), `"dropout": 0.5`, `"dropout": 0.25`, 1)
	if over != want {
		t.Fatalf("--recipe with --epochs 2 --set hyperparameters.dropout=0.25:\n%s\nwant\n%s", over, want)
	}
	// The old flags set the same fields, with a warning on standard error.
	old, err := run(t, "train", "--recipe", file, "--epochs", "2", "--dropout", "0.25", "--print-recipe")
	if warn := "Flag --dropout has been deprecated, use --set hyperparameters.dropout=VALUE\n"; err != nil || old != warn+want {
		t.Fatalf("--recipe with --dropout 0.25: %v\n%s\nwant the warning and\n%s", err, old, want)
	}
	// The same training: from the flags and from the file, the same weights.
	common := []string{"train", "--dataset", "jsonl", "--path", data, "--dev-split", "none", "--embeddings", vectors, "--workers", "1"}
	fromFlags, fromFile := filepath.Join(dir, "flags.as2"), filepath.Join(dir, "file.as2")
	if out, err := run(t, append(append(common, flags...), "--out", fromFlags)...); err != nil {
		t.Fatalf("train from flags: %v\n%s", err, out)
	}
	if out, err := run(t, append(common, "--recipe", file, "--out", fromFile)...); err != nil {
		t.Fatalf("train from --recipe: %v\n%s", err, out)
	}
	a, err := model.Load(fromFlags)
	if err != nil {
		t.Fatal(err)
	}
	b, err := model.Load(fromFile)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Tensors(), b.Tensors()) || string(a.Config().Hyper) != string(b.Config().Hyper) {
		t.Fatal("training from the printed recipe gave other weights than training from the flags")
	}
	// --init's recipe holds the model's hyperparameters.
	if out, err := run(t, "train", "--init", fromFile, "--print-recipe"); err != nil || !strings.Contains(out, `"filters": 4`) || !strings.Contains(out, `"kernel": 2`) {
		t.Fatalf("--init --print-recipe: %v\n%s", err, out)
	}
	bad := func(js string) string {
		p := filepath.Join(dir, fmt.Sprintf("bad%d.json", len(js)))
		os.WriteFile(p, []byte(js), 0o644)
		return p
	}
	unknown := bad(`{"architecture": "cosinet", "hyperparameters": {"filterz": 3}}`)
	zero := bad(`{"architecture": "cosinet", "training": {"epochs": 0}}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--recipe", unknown}, "recipe " + unknown + `: json: unknown field "filterz"`},
		{[]string{"--recipe", file, "--arch", "ca"}, "architecture ca: the recipe " + file + " is for cosinet"},
		{[]string{"--recipe", file, "--paper"}, "the paper's settings and the recipe " + file},
		{[]string{"--recipe", file, "--clusters", "4"}, "--clusters does not apply to architecture cosinet"},
		{[]string{"--recipe", file, "--set", "hyperparameters.clusters=4"}, `--set: hyperparameters.clusters: no field "clusters" here`},
		{[]string{"--set", "training.epochs=0"}, "--set training.epochs 0: must be at least 1"},
		{[]string{"--set", "training.epochs=x"}, `--set training.epochs "x": want an integer`},
		{[]string{"--set", "epochs"}, "want FIELD=VALUE"},
		{[]string{"--set", "architecture=ca"}, "start from another architecture's recipe"},
		{[]string{"--arch", "dual", "--set", "hyperparameters.encoder=static"}, "hyperparameters.encoder: no field"},
		{[]string{"--recipe", zero}, "recipe " + zero + ": training.epochs 0: must be at least 1"},
		{[]string{"--arch", "ca", "--kernel", "3"}, "--kernel does not apply to architecture ca (only to cosinet)"},
	} {
		args := append([]string{"train", "--print-recipe"}, tc.args...)
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("as2 %s: error %v, want %q", strings.Join(args, " "), err, tc.want)
		}
	}
	// as2 train recipe: the registered recipes, by name.
	if out, err := run(t, "train", "recipe"); err != nil || !strings.Contains(out, "compclip-paper\n") {
		t.Fatalf("train recipe: %v\n%s", err, out)
	}
	out, err := run(t, "train", "recipe", "compclip-paper")
	if err != nil {
		t.Fatal(err)
	}
	got, err := model.ReadRecipe([]byte(out))
	if reg, _ := model.LookupRecipe("compclip-paper"); err != nil || !reflect.DeepEqual(got, reg) {
		t.Fatalf("train recipe compclip-paper: %v\n%s", err, out)
	}
	if _, err := run(t, "train", "recipe", "bert"); err == nil || !strings.Contains(err.Error(), `recipe "bert" is unknown`) {
		t.Fatalf("train recipe bert: %v", err)
	}
}
