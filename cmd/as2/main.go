// Command as2 ranks candidate sentences so that the one that answers a
// question comes first (answer sentence selection). It is a thin shell over
// the as2 packages: dataset readers, text, rankers, evaluation.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/as2/as2/nn"
)

func main() {
	// With -tags openblas, set OpenBLAS's core type (Debian's 0.3.21 may not
	// recognise this CPU) before the library starts, re-executing as2 if
	// needed; a no-op in the default pure-Go build.
	nn.EnsureBLASEnv()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "as2:", err)
		os.Exit(1)
	}
}
