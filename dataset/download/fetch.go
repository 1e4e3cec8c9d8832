package download

import (
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
	"strconv"
	"strings"
)

// partSuffix marks a download in progress: the bytes received so far, which
// a later run resumes from.
const partSuffix = ".part"

// ChecksumError is a download whose bytes are not the ones the manifest
// names. The partial file has been deleted.
type ChecksumError struct {
	File, URL string
	Want, Got string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s: SHA-256 mismatch: expected %s, got %s (downloaded from %s; the download was deleted, run again to fetch it anew)", e.File, e.Want, e.Got, e.URL)
}

// TruncatedError is a download that ended before all its bytes arrived
// (the connection closed, or the command was stopped). The bytes received
// stay in File+".part", and the next run resumes from there.
type TruncatedError struct {
	File, URL string
	Got, Want int64
	Err       error // why the transfer stopped, if known
}

func (e *TruncatedError) Error() string {
	msg := fmt.Sprintf("%s: download incomplete: %d of %d bytes from %s", e.File, e.Got, e.Want, e.URL)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; run the command again to resume"
}

func (e *TruncatedError) Unwrap() error { return e.Err }

// UnreachableError is a source that could not be reached at all: no
// network, a name that does not resolve, a refused connection. Nothing was
// downloaded and no partial file is left.
type UnreachableError struct {
	File, URL, Host string
	Err             error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: could not reach %s to download %s (%v)", e.File, e.Host, e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// unreachable wraps a transport error of GET src (not an HTTP status, not
// a cancelled context) as an UnreachableError.
func unreachable(ctx context.Context, dest, src string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", dest, err)
	}
	host := src
	if u, perr := url.Parse(src); perr == nil && u.Host != "" {
		host = u.Host
	}
	// The *url.Error repeats the method and URL, which the message names.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &UnreachableError{File: dest, URL: src, Host: host, Err: err}
}

// fetch makes dest hold the size bytes with SHA-256 sum that src serves.
// A dest that already holds them is kept (Present); otherwise the bytes go
// to dest+".part", resuming from what an earlier run left there with an HTTP
// Range request, and dest appears only once size and checksum match, by an
// atomic rename.
func (g *getter) fetch(ctx context.Context, src, dest string, size int64, sum, label string) (Status, error) {
	if ok, err := hasContent(dest, size, sum); err != nil {
		return 0, err
	} else if ok {
		return Present, nil
	}
	// A dest with other bytes is stale (a changed manifest, a damaged
	// file): it is replaced.
	if err := os.Remove(dest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("removing stale %s: %w", dest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return 0, err
	}
	part := dest + partSuffix
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", part, err)
	}
	status := Downloaded
	if have > size { // not a prefix of this file: start again
		if err := restart(f); err != nil {
			return 0, fmt.Errorf("%s: %w", part, err)
		}
		have = 0
	}
	if have > 0 {
		status = Resumed
	}
	if have < size {
		from, err := g.transfer(ctx, f, src, dest, have, size, label)
		if err != nil {
			// Keep a .part only when it holds bytes to resume from: an
			// empty one (the source unreachable, a 404) is of no use.
			if st, serr := f.Stat(); serr == nil && st.Size() == 0 {
				f.Close()
				os.Remove(part)
			}
			return 0, err
		}
		if from == 0 {
			status = Downloaded // the server ignored the range, or there was nothing to resume
		}
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("%s: %w", part, err)
	}
	got, err := hashFile(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", part, err)
	}
	if got != sum {
		f.Close()
		os.Remove(part)
		return 0, &ChecksumError{File: dest, URL: src, Want: sum, Got: got}
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("%s: %w", part, err)
	}
	if err := os.Rename(part, dest); err != nil {
		return 0, err
	}
	return status, nil
}

// transfer appends the bytes of src from offset have to f, and returns the
// offset it resumed from (0 when the server ignored the range and the file
// was started again). Whatever arrived stays in f, so that an interrupted
// transfer resumes.
func (g *getter) transfer(ctx context.Context, f *os.File, src, dest string, have, size int64, label string) (int64, error) {
	resp, err := g.get(ctx, src, have)
	if err != nil {
		return 0, unreachable(ctx, dest, src, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != have {
			// Not the bytes asked for: ask again for the whole file.
			resp.Body.Close()
			return g.transferAll(ctx, f, src, dest, size, label)
		}
	case resp.StatusCode == http.StatusOK:
		// A server that ignores Range sends the whole file: start again.
		if have > 0 {
			g.logf("%s: the server ignored the range request; downloading from the start", dest)
			if err := restart(f); err != nil {
				return 0, err
			}
			have = 0
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		resp.Body.Close()
		return g.transferAll(ctx, f, src, dest, size, label)
	default:
		return 0, fmt.Errorf("%s: GET %s: %s", dest, src, resp.Status)
	}
	if err := g.copyBody(ctx, f, resp.Body, src, dest, have, size, label); err != nil {
		return 0, err
	}
	return have, nil
}

// transferAll downloads src from its first byte into f, emptied first.
func (g *getter) transferAll(ctx context.Context, f *os.File, src, dest string, size int64, label string) (int64, error) {
	if err := restart(f); err != nil {
		return 0, err
	}
	resp, err := g.get(ctx, src, 0)
	if err != nil {
		return 0, unreachable(ctx, dest, src, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: GET %s: %s", dest, src, resp.Status)
	}
	return 0, g.copyBody(ctx, f, resp.Body, src, dest, 0, size, label)
}

// copyBody appends body to f, which holds have of the size bytes.
func (g *getter) copyBody(ctx context.Context, f *os.File, body io.Reader, src, dest string, have, size int64, label string) error {
	var w io.Writer = f
	if g.opts.Progress != nil {
		p := g.opts.Progress(label, size, have)
		defer p.Finish()
		w = io.MultiWriter(f, p)
	}
	// One byte more than expected tells a longer file from a complete one.
	n, err := io.Copy(w, io.LimitReader(body, size-have+1))
	got := have + n
	if got > size {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("%s: %s sent more than the expected %d bytes; the download was deleted", dest, src, size)
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil || got < size {
		if err == nil {
			err = errors.New("connection closed early")
		}
		return &TruncatedError{File: dest, URL: src, Got: got, Want: size, Err: err}
	}
	return nil
}

// get sends GET src, asking for the bytes from offset on when it is not 0.
func (g *getter) get(ctx context.Context, src string, offset int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	// The checksums are of the bytes as stored: no transparent
	// decompression by the transport.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", "as2-data-get")
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	// A transport error (a *url.Error) names the method and URL already.
	return g.client().Do(req)
}

// rangeStart reads the first byte offset of a Content-Range header,
// "bytes START-END/TOTAL".
func rangeStart(h string) (int64, bool) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(start, 10, 64)
	return n, err == nil && n >= 0
}

// restart empties f for a download from the first byte.
func restart(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// hasContent reports whether path exists with the given size and SHA-256.
func hasContent(path string, size int64, sum string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s exists and is not a regular file", path)
	}
	if size > 0 && st.Size() != size {
		return false, nil
	}
	if sum == "" {
		return true, nil
	}
	got, err := hashFile(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return got == sum, nil
}

// hashFile returns the SHA-256 of all of f, in lowercase hex.
func hashFile(f *os.File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
