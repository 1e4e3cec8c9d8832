package as2_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/as2/as2"
	"github.com/as2/as2/trigger"
)

func TestPassages(t *testing.T) {
	raw, err := os.ReadFile("serve/testdata/packet-switching.txt")
	if err != nil {
		t.Fatal(err)
	}
	article := string(raw)
	bm25, err := as2.OpenRanker(context.Background(), "bm25")
	if err != nil {
		t.Fatal(err)
	}
	cal := &trigger.Calibration{A: 1, B: -5, Threshold: 0.5}
	tests := []struct {
		name, question, doc string
		maxChunks           int
		opts                []as2.SelectOption
		wantErr             string // "" for none
		truncated           bool
		answerIn            string // the best passage holds it
	}{
		{"all passages", "Who developed DATAPAC?", article, 0, []as2.SelectOption{as2.WithRanker(bm25)}, "", false, "Bell Northern Research"},
		{"the cap stops before the answer", "Who developed DATAPAC?", article, 2, []as2.SelectOption{as2.WithRanker(bm25)}, "", true, ""},
		{"calibrated", "Who developed DATAPAC?", article, 0, []as2.SelectOption{as2.WithRanker(bm25), as2.WithCalibration(cal)}, "", false, "Bell Northern Research"},
		{"a short document is one passage", "who wrote hamlet?", "Hamlet is a play. Shakespeare wrote it.", 0, []as2.SelectOption{as2.WithRanker(bm25)}, "", false, "Shakespeare"},
		{"empty question", " ", article, 0, []as2.SelectOption{as2.WithRanker(bm25)}, as2.ErrNoQuestion.Error(), false, ""},
		{"empty document", "who?", "  \n", 0, []as2.SelectOption{as2.WithRanker(bm25)}, as2.ErrNoSentences.Error(), false, ""},
		{"negative cap", "who?", article, -1, []as2.SelectOption{as2.WithRanker(bm25)}, "maxChunks -1", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, err := as2.Passages(context.Background(), tt.question, tt.doc, tt.maxChunks, tt.opts...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				if tt.wantErr == as2.ErrNoQuestion.Error() && !errors.Is(err, as2.ErrNoQuestion) {
					t.Errorf("error %v is not ErrNoQuestion", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pr.Truncated() != tt.truncated || (tt.truncated && len(pr.Passages) != tt.maxChunks) {
				t.Errorf("%d of %d passages, truncated %v; want truncated %v", len(pr.Passages), pr.Total, pr.Truncated(), tt.truncated)
			}
			best := pr.Passages[0]
			if tt.doc[best.Start:best.End] != best.Text || best.Sentence == nil || !strings.Contains(best.Text, best.Sentence.Text) {
				t.Errorf("best passage %+v: want the document's text at its offsets, with its best sentence", best)
			}
			if tt.answerIn != "" && !strings.Contains(best.Sentence.Text, tt.answerIn) {
				t.Errorf("best sentence %q, want the one holding %q", best.Sentence.Text, tt.answerIn)
			}
			if pr.Calibrated != (cal != nil && len(tt.opts) == 2) || (pr.Calibrated && (pr.Probability != cal.Prob(best.Score) || pr.Answer != cal.Answer(best.Score))) {
				t.Errorf("calibrated %v, probability %g, answer %v: want the calibration of score %g when one is given", pr.Calibrated, pr.Probability, pr.Answer, best.Score)
			}
		})
	}
}
