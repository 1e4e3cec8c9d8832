// Command as2 ranks candidate sentences so that the one that answers a
// question comes first (answer sentence selection). It is a thin shell over
// the as2 packages: dataset readers, text, rankers, evaluation.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/as2/as2/internal/atomicfile"
	"github.com/as2/as2/internal/sigexit"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/serve"
)

func main() {
	// With -tags openblas, set OpenBLAS's core type before the library
	// starts (a no-op in the default pure-Go build).
	nn.EnsureBLASEnv()
	os.Exit(runMain(os.Args[1:], os.Stderr))
}

// runMain runs the command and returns the exit status (sigexit.Run): a
// command stops within 300ms of SIGINT or SIGTERM, as2 serve drains as it
// announced (serve.WithDrainNotice), and no half-written file stays.
func runMain(args []string, stderr io.Writer) int {
	return sigexit.Run(func(ctx context.Context) error {
		root := newRootCmd()
		root.SetArgs(args)
		return root.ExecuteContext(ctx)
	}, stderr, sigexit.Options{Grace: 300 * time.Millisecond, DrainSlack: 2 * time.Second, WithDrainNotice: serve.WithDrainNotice,
		Promised: func(err error) bool { return errors.Is(err, serve.ErrGraceEnded) }, Cleanup: atomicfile.RemovePending})
}
