// Package atomicfile writes files so that they appear whole or not at all:
// a failed or interrupted write leaves any old file untouched. A process
// that must exit without waiting for its writes (a second signal) calls
// RemovePending, so that it leaves no temporary file behind.
package atomicfile

import (
	"io"
	"os"
	"sync"

	"github.com/google/renameio/v2"
)

// pending holds the temporary files of the writes in progress.
var pending sync.Map

// Write writes the file path through write, with mode 0644 less the umask
// (as a plain create), replacing it only once write has succeeded. The
// path "-" writes to stdout instead.
func Write(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644))
	if err != nil {
		return err
	}
	pending.Store(f.Name(), true)
	defer pending.Delete(f.Name())
	defer f.Cleanup()
	if err := write(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// RemovePending deletes the temporary file of every write in progress,
// which then fails.
func RemovePending() {
	pending.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		pending.Delete(name)
		return true
	})
}
