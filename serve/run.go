package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// RunOptions are the connection timeouts and the shutdown of Run.
type RunOptions struct {
	// Drain is how long the server keeps serving after ctx is done, with
	// /readyz failing, so that load balancers stop sending it requests
	// before it stops accepting connections.
	Drain time.Duration
	// Grace bounds the wait for in-flight requests once it stops accepting.
	Grace time.Duration
	// ReadHeaderTimeout bounds reading a request's header, ReadTimeout its
	// header and body (a body trickling in is cut off there), IdleTimeout a
	// keep-alive connection between requests.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// Log receives one line per phase of the shutdown (nil: none).
	Log io.Writer
}

// DefaultRunOptions are as2 serve's defaults.
func DefaultRunOptions() RunOptions {
	return RunOptions{Drain: 5 * time.Second, Grace: 30 * time.Second, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second}
}

// Run serves s on ln until ctx is done (as2 serve's ctx ends on SIGINT or
// SIGTERM), then drains: /readyz fails at once, responses ask clients to
// close their connections, requests are still served for o.Drain; then
// the listener closes, idle connections close, and in-flight requests get
// up to o.Grace to finish. It returns nil after a clean shutdown.
func (s *Server) Run(ctx context.Context, ln net.Listener, o RunOptions) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: o.ReadHeaderTimeout, ReadTimeout: o.ReadTimeout, IdleTimeout: o.IdleTimeout}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	if notice, ok := ctx.Value(drainNoticeKey{}).(func(time.Duration)); ok {
		notice(o.Drain + o.Grace)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// From now on /readyz fails and every response says Connection:
	// close (see ServeHTTP). (http.Server.SetKeepAlivesEnabled would also
	// close idle connections at once, under clients about to reuse them.)
	s.Closing()
	logf("as2: shutting down: /readyz fails, serving for %v more (--drain)", o.Drain)
	select {
	case <-time.After(o.Drain):
	case err := <-done:
		return err
	}
	logf("as2: no longer accepting connections; finishing in-flight requests (--grace %v)", o.Grace)
	sctx, cancel := context.WithTimeout(context.Background(), o.Grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// Shutdown leaves the connections of unfinished requests
			// open; closing them cancels those requests' contexts.
			hs.Close()
			logf("as2: --grace %v ended: requests still in flight were cut off", o.Grace)
			return fmt.Errorf("shutdown: %w (--grace %v)", ErrGraceEnded, o.Grace)
		}
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logf("as2: stopped")
	return nil
}

// ErrGraceEnded is Run's error when the grace ended before every
// in-flight request finished: those were cut off, as the shutdown
// promises, so a process may still count the shutdown as orderly.
var ErrGraceEnded = errors.New("requests still in flight when the grace ended were cut off")

type drainNoticeKey struct{}

// WithDrainNotice returns a copy of ctx under which Run, once it serves,
// calls notice with the longest its shutdown may take after ctx is done
// (Drain + Grace). A program that cancels ctx on a signal and then exits
// after a short grace, as the as2 command does so that its other commands
// stop promptly, learns from it that Run finishes its in-flight requests
// itself and must be waited for: otherwise the process would end under
// the drain it promised.
func WithDrainNotice(ctx context.Context, notice func(shutdown time.Duration)) context.Context {
	return context.WithValue(ctx, drainNoticeKey{}, notice)
}
