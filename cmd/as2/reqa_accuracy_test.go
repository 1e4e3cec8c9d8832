package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/internal/shareddata"
)

// TestReQAENDXBeatsDual is issue 12's target on real data: ENDX beats its
// own dual encoder. It trains seed 1 of two rows of docs/results.md's full-pool
// ReQA table (scripts/reqa-table.sh full; results/reqa-full.tsv), the
// 2-layer transformer over GloVe as a dual encoder and as ENDX with GAM at
// temperatures 50, on WikiQA train and TrecQA TRAIN-ALL for 5 epochs, and
// retrieves over the whole ReQA SQuAD pool, which neither trained on. Seed
// 1 gives MRR 15.20 and 15.71 (the table's runs, with an older build:
// 15.19 and 15.72; over its 3 seeds ENDX won each by 0.4 to 0.7); the
// floors are half a point under, and ENDX must stay above the dual
// encoder. Training is reproducible bit for bit with one build (go test
// -run Reproducible ./train), so on one machine the test measures the same
// numbers every run. It trains for 7 to 11 minutes on 2 cores; -short
// skips it.
func TestReQAENDXBeatsDual(t *testing.T) {
	shareddata.Tier(t, shareddata.Quick)
	if testing.Short() {
		t.Skip("-short: skipping 7 to 11 minutes of dual-encoder training on the real benchmarks")
	}
	data := shareddata.Dir(t)
	t.Setenv("AS2_DATA", data) // for --also and the GloVe vectors
	dir := t.TempDir()
	pool := filepath.Join(dir, "pool.jsonl")
	if out, err := run(t, "data", "reqa", "--out", pool); err != nil {
		t.Fatalf("data reqa: %v\n%s", err, out)
	}
	mrr := func(name string, flags ...string) float64 {
		t.Helper()
		m := filepath.Join(dir, name+".as2")
		start := time.Now()
		args := append([]string{"train", "--arch", "dual", "--objective", "in-batch-softmax", "--dataset", "wikiqa",
			"--also", "trecqa:train-all", "--epochs", "5", "--seed", "1", "--dev-split", "none", "--quiet",
			"--layer", "transformer", "--out", m}, flags...)
		if out, err := run(t, args...); err != nil {
			t.Fatalf("as2 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		out, err := run(t, "index", "eval", "--pool", pool, "--retriever", m, "--format", "json")
		if err != nil {
			t.Fatalf("retrieve eval %s: %v\n%s", name, err, out)
		}
		var res struct{ MRR float64 }
		if err := json.Unmarshal([]byte(out[max(strings.Index(out, "{"), 0):]), &res); err != nil {
			t.Fatalf("retrieve eval %s: %v\n%s", name, err, out)
		}
		t.Logf("%s: MRR %.4f (%s)", name, res.MRR, time.Since(start).Round(time.Second))
		return res.MRR
	}
	dual := mrr("dual")
	endx := mrr("endx", "--endx", "--gam-temperature", "50", "--gam-dual-temperature", "50")
	for _, c := range []struct {
		name       string
		got, floor float64
	}{{"Dual-Transformer", dual, 0.147}, {"ENDX-Transformer", endx, 0.152}} {
		if c.got < c.floor {
			t.Errorf("%s: MRR %.4f on the full ReQA SQuAD pool, under its floor %.3f", c.name, c.got, c.floor)
		}
	}
	if endx <= dual {
		t.Errorf("ENDX-Transformer's MRR %.4f is not above its dual encoder's %.4f", endx, dual)
	}
}
