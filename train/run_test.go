package train

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/cosinet"
)

// TestRunFit: a run scores its questions with the teacher, trains under
// the distilled objective and records the training in the model; a run
// under an in-batch objective needs a model that trains on pairs.
func TestRunFit(t *testing.T) {
	small := func(objective string, distill bool) (Plan, model.Trainable) {
		r := recipe(t, "cosinet", objective, func(r *model.Recipe) {
			h := r.Hyper.(*cosinet.Hyper)
			h.Filters, h.Kernel, h.RNN, h.PairFeatures = 4, 2, "none", false
			r.Training.Epochs, r.Training.Batch = 1, 2
			if distill {
				r.Training.Distill = model.DefaultDistillation("pos")
			}
		})
		p, err := Resolve(r, false)
		if err != nil {
			t.Fatal(err)
		}
		p.Workers = 1
		a, _ := model.Lookup(r.Architecture)
		m, err := a.New(r, encodertest.Static[float32](t))
		if err != nil {
			t.Fatal(err)
		}
		return p, m
	}
	p, m := small("listwise", true)
	tt := &teacher{}
	run := &Run{Plan: p, Questions: questions(4), Teacher: tt, Dataset: "tiny", Split: "train"}
	sum, err := run.Fit(context.Background(), m)
	if err != nil || sum.Questions == 0 {
		t.Fatalf("%+v, %v", sum, err)
	}
	var rec Record
	if err := json.Unmarshal(m.Config().Training, &rec); err != nil || rec.Dataset != "tiny" || rec.Split != "train" || rec.Epochs != 1 || !strings.HasPrefix(rec.Objective, "listwise") {
		t.Errorf("record %s (%v)", m.Config().Training, err)
	}
	if _, ok := run.Objective.(model.Distilled); !ok || tt.calls != 4 {
		t.Errorf("objective %T after %d teacher calls", run.Objective, tt.calls)
	}
	p, m = small("listwise", true)
	if _, err := (&Run{Plan: p, Questions: questions(2)}).Fit(context.Background(), m); err == nil || !strings.Contains(err.Error(), "not opened") {
		t.Errorf("a teacher left unopened: %v", err)
	}
	p, m = small("in-batch-softmax", false)
	if _, err := (&Run{Plan: p, Questions: questions(2)}).Fit(context.Background(), m); err == nil || !strings.Contains(err.Error(), "cannot be trained on pairs") {
		t.Errorf("cosinet on pairs: %v", err)
	}
}

// TestReportLines: the epoch and closing lines as2 train prints.
func TestReportLines(t *testing.T) {
	for _, tc := range []struct {
		r    EpochResult
		want string
	}{
		{EpochResult{Epoch: 2, Loss: 0.5, Duration: 1500 * time.Millisecond}, "epoch 2: loss 0.5000  1.5s"},
		{EpochResult{Epoch: 1, Loss: 0.25, Dev: true, DevMAP: 0.7, DevMRR: 0.75, Duration: time.Second}, "epoch 1: loss 0.2500  1.0s  dev MAP 0.7000  MRR 0.7500"},
	} {
		if got := tc.r.Line(); got != tc.want {
			t.Errorf("Line() = %q, want %q", got, tc.want)
		}
	}
	kept := EpochResult{Epoch: 1, Dev: true, DevMAP: 0.5, DevMRR: 0.6}
	for _, tc := range []struct {
		s       Summary
		inBatch bool
		want    string
	}{
		{Summary{Params: 10, Questions: 4, Skipped: 1, Pairs: 100, Wall: 2 * time.Second}, false,
			"trained m: 10 parameters, 4 questions (1 skipped), 100 pairs in 2.0s (50 pairs/s, "},
		{Summary{Params: 10, Questions: 8, Pairs: 30, Wall: time.Second, Epochs: []EpochResult{kept}, Kept: 1}, true,
			"trained m: 10 parameters, 8 training pairs (0 skipped), 30 pairs in 1.0s (30 pairs/s, "},
	} {
		got := tc.s.Text("m", tc.inBatch)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Text() = %q, want it to start %q", got, tc.want)
		}
		if dev := tc.s.DevText(); dev != "" && !strings.HasSuffix(got, ", "+dev) {
			t.Errorf("Text() = %q, want it to end with %q", got, dev)
		}
	}
}
