package encoder_test

import (
	"strings"
	"testing"

	"github.com/as2/as2/encoder"
	_ "github.com/as2/as2/encoder/bert"
	_ "github.com/as2/as2/encoder/roberta"
)

func TestHFFamilyOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     encoder.HFConfig
		want    string // the family, or an error's text
		wantErr bool
	}{
		{"bert by type", encoder.HFConfig{ModelType: "bert"}, "bert", false},
		{"roberta by type", encoder.HFConfig{ModelType: "roberta"}, "roberta", false},
		{"xlm-r by type", encoder.HFConfig{ModelType: "xlm-roberta", Architectures: []string{"XLMRobertaForSequenceClassification"}}, "roberta", false},
		{"by architecture", encoder.HFConfig{Architectures: []string{"RobertaForSequenceClassification"}}, "roberta", false},
		{"old bert", encoder.HFConfig{}, "bert", false},
		{"unknown arch, no type", encoder.HFConfig{Architectures: []string{"BertForMaskedLM"}}, "bert", false},
		{"unknown type", encoder.HFConfig{ModelType: "gpt2", Architectures: []string{"GPT2LMHeadModel"}}, `model_type "gpt2" (architectures ["GPT2LMHeadModel"]) is not supported`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := encoder.HFFamilyOf(tc.cfg)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil || f.Name != tc.want {
				t.Fatalf("family %q, err %v; want %q", f.Name, err, tc.want)
			}
		})
	}
}
