// Command as2 ranks candidate sentences so that the one that answers a
// question comes first (answer sentence selection). It is a thin shell over
// the as2 packages: dataset readers, text, rankers, evaluation.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/as2/as2/nn"
)

// signalGrace is how long a command may take to stop after SIGINT or
// SIGTERM cancels its context (loops check it between questions, model
// scoring between chunks) before as2 exits without it: reading a huge file
// or scoring one huge question must not keep a signalled process alive.
const signalGrace = 300 * time.Millisecond

func main() {
	// With -tags openblas, set OpenBLAS's core type (Debian's 0.3.21 may not
	// recognise this CPU) before the library starts, re-executing as2 if
	// needed; a no-op in the default pure-Go build.
	nn.EnsureBLASEnv()
	os.Exit(runMain(os.Args[1:], os.Stderr))
}

// runMain runs the command and returns the exit status: 0, 1 for an error,
// or 128+signal (130 for SIGINT, 143 for SIGTERM) when a signal stopped it.
func runMain(args []string, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		root := newRootCmd()
		root.SetArgs(args)
		done <- root.ExecuteContext(ctx)
	}()
	select {
	case err := <-done:
		if err != nil {
			fmt.Fprintln(stderr, "as2:", err)
			return 1
		}
		return 0
	case sig := <-sigs:
		cancel()
		select {
		case err := <-done: // stopped in time; its error is the cancellation
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(stderr, "as2:", err)
			}
		case <-time.After(signalGrace):
			pending.removeAll() // leave no half-written output behind
		case <-sigs: // a second signal: no more waiting
			pending.removeAll()
		}
		fmt.Fprintf(stderr, "as2: stopped by %s\n", signalName(sig))
		if s, ok := sig.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 1
	}
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT (interrupt)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
