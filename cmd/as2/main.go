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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "as2:", err)
		os.Exit(1)
	}
}
