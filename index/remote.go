package index

import (
	"errors"
	"fmt"
	"io"
)

// ErrUnavailable is wrapped by the errors of an index whose server cannot
// be reached (a Remote's engine, down or unreachable): a failure of that
// index, not of the request, which a server answers with 503 for it alone.
var ErrUnavailable = errors.New("index unavailable")

// ErrBackend is wrapped by the errors an index's server returned (an HTTP
// error, a malformed response): a server answers 502 for that index.
var ErrBackend = errors.New("index server error")

// Remote is an index whose answers live in another system, a vector
// engine such as Weaviate (package index/weaviate): what a Bundle records
// in place of the vectors, so that "as2 index search" finds them again. It
// cannot search by itself; the command that reads it opens the engine
// from Engine and Params.
type Remote struct {
	// Engine names the system (as index/weaviate's Kind).
	Engine string
	// Params say where the answers live (a URL, a collection), as the
	// engine's adapter defines them.
	Params map[string]string
	// Count is the answers stored there when the bundle was written.
	Count int
}

// RemoteKind is Remote's kind in the file format.
const RemoteKind = "remote"

const remoteVersion = 1

// Kind implements Stored.
func (x *Remote) Kind() string { return RemoteKind }

// Len implements Stored: the answers stored when it was written.
func (x *Remote) Len() int { return x.Count }

// WriteTo writes x in the package's checked format (kind "remote", version
// 1; body: the engine as a string, the params as a uint32 count then key
// and value strings, keys ascending, then the count as uint64).
func (x *Remote) WriteTo(w io.Writer) (int64, error) {
	if err := x.check(); err != nil {
		return 0, err
	}
	fw := newFileWriter(w, RemoteKind, remoteVersion)
	x.writeBody(fw)
	return fw.finish()
}

func (x *Remote) check() error {
	if x.Engine == "" || len(x.Engine) > maxString || x.Count < 0 {
		return fmt.Errorf("index: a remote index of engine %q and %d answers", x.Engine, x.Count)
	}
	for k, v := range x.Params {
		if k == "" || len(k) > maxString || len(v) > maxString {
			return fmt.Errorf("index: remote parameter %q: want 1 to %d bytes, and a value of at most %d", k, maxString, maxString)
		}
	}
	return nil
}

func (x *Remote) writeBody(fw *fileWriter) {
	fw.str(x.Engine)
	writeStrings(fw, x.Params)
	fw.u64(uint64(x.Count))
}

// ReadRemote reads what Remote.WriteTo wrote.
func ReadRemote(r io.Reader) (*Remote, error) {
	return readKind(r, RemoteKind, remoteVersion, readRemoteBody)
}

func readRemoteBody(fr *fileReader) *Remote {
	x := &Remote{Engine: fr.str()}
	if fr.err == nil && x.Engine == "" {
		fr.fail(errors.New("a remote index without an engine"))
	}
	x.Params = readStrings(fr, "remote parameters")
	count := fr.u64()
	if fr.err == nil && count > 1<<40 {
		fr.fail(fmt.Errorf("a remote index of %d answers", count))
	}
	x.Count = int(count)
	return x
}
