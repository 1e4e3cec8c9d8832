package download

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestGetNamedRefusesUnknownNames: a name the manifest does not have is
// refused before anything is fetched or created.
func TestGetNamedRefusesUnknownNames(t *testing.T) {
	dir := t.TempDir() + "/data"
	err := GetNamed(context.Background(), []string{"wikiqa", "nosuch"}, dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("%v, want an error naming nosuch", err)
	}
	if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
		t.Errorf("the data folder was created: %v", serr)
	}
}
