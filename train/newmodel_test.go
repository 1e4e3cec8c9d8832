package train

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/model"
)

// TestNewModelFromNamesFlags: each way of failing names the flags that
// chose the encoder and its weights.
func TestNewModelFromNamesFlags(t *testing.T) {
	r, err := model.DefaultRecipe("cosinet", false, "")
	if err != nil {
		t.Fatal(err)
	}
	bad := r
	bad.Encoder = "nosuch"
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		r                       model.Recipe
		embeddings, initEncoder string
		want                    string
	}{
		{bad, "", "", `--encoder nosuch: encoder nosuch: encoder "nosuch": want`},
		{r, missing + ".txt", "", "--encoder " + r.Encoder + ", --embeddings " + missing + ".txt: "},
		{r, "", missing + ".as2", "--init-encoder: "},
	} {
		m, err := NewModelFrom(tc.r, tc.embeddings, "auto", tc.initEncoder)
		if err == nil || m != nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q %q %q: %v, want an error starting %q", tc.r.Encoder, tc.embeddings, tc.initEncoder, err, tc.want)
		}
	}
}
