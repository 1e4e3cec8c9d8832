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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/serve"
)

// signalGrace is how long a command may take to stop after SIGINT or
// SIGTERM cancels its context (loops check it between questions, model
// scoring between chunks) before as2 exits without it: reading a huge file
// or scoring one huge question must not keep a signalled process alive.
// A command that drains by itself (as2 serve, through serve.Run's drain
// notice) gets the time it announced instead.
const signalGrace = 300 * time.Millisecond

// drainSlack is added to what a draining command announced, for the
// drain's own steps (closing the listener, writing the last log lines):
// the command's own limits end it first, this only guards against a hang.
const drainSlack = 2 * time.Second

func main() {
	// With -tags openblas, set OpenBLAS's core type (Debian's 0.3.21 may not
	// recognise this CPU) before the library starts, re-executing as2 if
	// needed; a no-op in the default pure-Go build.
	nn.EnsureBLASEnv()
	os.Exit(runMain(os.Args[1:], os.Stderr))
}

// runMain runs the command and returns the exit status: 0, 1 for an error,
// or 128+signal (130 for SIGINT, 143 for SIGTERM) when a signal stopped it.
// A command that drains by itself (as2 serve) is waited for after the
// first signal, and exits 0 when its drain ends, in-flight requests
// finished or cut off by its grace; a second signal stops any command at
// once.
func runMain(args []string, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// drain is the longest shutdown a running server announced (0: the
	// command does not drain by itself).
	var drain atomic.Int64
	ctx = serve.WithDrainNotice(ctx, func(d time.Duration) { drain.Store(int64(max(d, 1))) })
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
		if d := time.Duration(drain.Load()); d > 0 {
			// The server finishes its in-flight requests itself, within
			// the drain and grace it announced: its clean end is the
			// process's, a second signal cuts it short.
			select {
			case err := <-done:
				// A grace that ran out is part of the promised shutdown:
				// said, but not a failure.
				if err != nil && !errors.Is(err, context.Canceled) {
					fmt.Fprintln(stderr, "as2:", err)
					if !errors.Is(err, serve.ErrGraceEnded) {
						return 1
					}
				}
				return 0
			case <-time.After(d + drainSlack):
				fmt.Fprintf(stderr, "as2: the drain did not end within %v\n", d+drainSlack)
			case <-sigs:
			}
			return stopped(stderr, sig)
		}
		select {
		case err := <-done: // stopped in time; its error is the cancellation
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(stderr, "as2:", err)
			}
		case <-time.After(signalGrace):
		case <-sigs: // a second signal: no more waiting
		}
		return stopped(stderr, sig)
	}
}

// stopped leaves no half-written output behind, says which signal stopped
// as2 and returns its exit status.
func stopped(stderr io.Writer, sig os.Signal) int {
	pending.removeAll()
	fmt.Fprintf(stderr, "as2: stopped by %s\n", signalName(sig))
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
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
