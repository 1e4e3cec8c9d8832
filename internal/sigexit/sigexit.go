// Package sigexit runs a command under SIGINT and SIGTERM and turns its end
// into an exit status: 0, 1 for an error, or 128+signal when a signal
// stopped it. The first signal cancels the command's context; a command
// that drains by itself (a server finishing its in-flight requests) says
// so through Options.WithDrainNotice and is waited for; a second signal
// stops any command at once.
package sigexit

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
)

// Options are Run's settings; the zero value waits Grace 0 and knows no
// drains.
type Options struct {
	// Grace is how long a cancelled command may take to stop before Run
	// returns without it: reading a huge file or scoring a huge question
	// must not keep a signalled process alive.
	Grace time.Duration
	// DrainSlack is added to a drain the command announced, for the
	// drain's own steps: the command's own limits end it first, this only
	// guards against a hang.
	DrainSlack time.Duration
	// WithDrainNotice returns ctx carrying notice, through which a
	// command announces the longest shutdown it will take (nil: none can).
	WithDrainNotice func(ctx context.Context, notice func(time.Duration)) context.Context
	// Promised reports an error that ends a drain as it promised it could
	// (a grace that ran out): said, but not a failure.
	Promised func(error) bool
	// Cleanup runs before Run returns without waiting for the command
	// (its half-written files).
	Cleanup func()
	// Signals, if not nil, replaces SIGINT and SIGTERM (tests).
	Signals <-chan os.Signal
}

// Run runs cmd and returns the exit status, writing its error or the
// signal that stopped it to stderr ("as2: ...").
func Run(cmd func(ctx context.Context) error, stderr io.Writer, o Options) int {
	sigs := o.Signals
	if sigs == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var drain atomic.Int64 // the longest drain announced (0: none)
	if o.WithDrainNotice != nil {
		ctx = o.WithDrainNotice(ctx, func(d time.Duration) { drain.Store(int64(max(d, 1))) })
	}
	done := make(chan error, 1)
	go func() { done <- cmd(ctx) }()
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
			// The drain's clean end is the process's.
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, context.Canceled) {
					fmt.Fprintln(stderr, "as2:", err)
					if o.Promised == nil || !o.Promised(err) {
						return 1
					}
				}
				return 0
			case <-time.After(d + o.DrainSlack):
				fmt.Fprintf(stderr, "as2: the drain did not end within %v\n", d+o.DrainSlack)
			case <-sigs:
			}
			return stopped(stderr, sig, o.Cleanup)
		}
		select {
		case err := <-done: // stopped in time; its error is the cancellation
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintln(stderr, "as2:", err)
			}
		case <-time.After(o.Grace):
		case <-sigs: // a second signal: no more waiting
		}
		return stopped(stderr, sig, o.Cleanup)
	}
}

// stopped cleans up, says which signal stopped the command and returns
// its exit status.
func stopped(stderr io.Writer, sig os.Signal, cleanup func()) int {
	if cleanup != nil {
		cleanup()
	}
	name := sig.String()
	switch sig {
	case os.Interrupt:
		name = "SIGINT (interrupt)"
	case syscall.SIGTERM:
		name = "SIGTERM"
	}
	fmt.Fprintf(stderr, "as2: stopped by %s\n", name)
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
