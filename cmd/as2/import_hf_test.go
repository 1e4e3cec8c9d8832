package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/model"
)

// as2 import hf reads each family's tiny checkpoint (config.json,
// model.safetensors with HF's names, tokenizer.json) into a model file.
func TestImportHFFamilies(t *testing.T) {
	for _, tc := range []struct{ dir, kind string }{
		{"../../encoder/roberta/testdata/tiny-roberta", "roberta"},
		{"../../encoder/roberta/testdata/tiny-xlm-roberta", "roberta"},
	} {
		t.Run(filepath.Base(tc.dir), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.as2")
			msg, err := run(t, "import", "hf", tc.dir, "--out", out)
			if err != nil {
				t.Fatalf("%v: %s", err, msg)
			}
			if !strings.Contains(msg, "over "+tc.kind) {
				t.Errorf("output %q does not name the %s encoder", msg, tc.kind)
			}
			m, err := model.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if k := m.Config().Encoder.Kind; k != tc.kind {
				t.Errorf("encoder kind %q, want %q", k, tc.kind)
			}
		})
	}
	msg, err := run(t, "import", "hf", "../../encoder/roberta/testdata", "--out", filepath.Join(t.TempDir(), "m.as2"))
	if err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a folder without config.json: %v %s", err, msg)
	}
}
