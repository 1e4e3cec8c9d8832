package sigexit

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

type noticeKey struct{}

var errPromised = errors.New("grace ended")

// TestRun: a command's own end, a signal that stops it in time, one it
// ignores (Grace), a drain that ends cleanly or as promised, and a second
// signal during a drain. The signals come through Options.Signals.
func TestRun(t *testing.T) {
	// Each command calls ready once it may be signalled: a draining one
	// after announcing its drain.
	type command func(ctx context.Context, ready func()) error
	waitCtx := func(ctx context.Context, ready func()) error { ready(); <-ctx.Done(); return ctx.Err() }
	hang := func(ctx context.Context, ready func()) error { ready(); select {} }
	drains := func(end error) command {
		return func(ctx context.Context, ready func()) error {
			ctx.Value(noticeKey{}).(func(time.Duration))(time.Minute)
			ready()
			<-ctx.Done()
			time.Sleep(10 * time.Millisecond) // the drain
			return end
		}
	}
	for _, tc := range []struct {
		name    string
		cmd     command
		signals []os.Signal // sent in order once the command is ready
		code    int
		say     string // in stderr ("": nothing written)
		cleaned bool
	}{
		{"ok", func(context.Context, func()) error { return nil }, nil, 0, "", false},
		{"error", func(context.Context, func()) error { return errors.New("bad flag") }, nil, 1, "as2: bad flag", false},
		{"sigint", waitCtx, []os.Signal{os.Interrupt}, 130, "as2: stopped by SIGINT (interrupt)", true},
		{"sigterm ignored", hang, []os.Signal{syscall.SIGTERM}, 143, "as2: stopped by SIGTERM", true},
		{"drained", drains(nil), []os.Signal{syscall.SIGTERM}, 0, "", false},
		{"drain promised", drains(errPromised), []os.Signal{syscall.SIGTERM}, 0, "as2: grace ended", false},
		{"drain failed", drains(errors.New("listener")), []os.Signal{syscall.SIGTERM}, 1, "as2: listener", false},
		{"drain cut", func(ctx context.Context, ready func()) error {
			ctx.Value(noticeKey{}).(func(time.Duration))(time.Minute)
			ready()
			select {}
		}, []os.Signal{syscall.SIGTERM, os.Interrupt}, 143, "as2: stopped by SIGTERM", true},
	} {
		sigs := make(chan os.Signal, 2)
		cleaned := false
		o := Options{Grace: 20 * time.Millisecond, DrainSlack: time.Second, Signals: sigs,
			WithDrainNotice: func(ctx context.Context, n func(time.Duration)) context.Context {
				return context.WithValue(ctx, noticeKey{}, n)
			},
			Promised: func(err error) bool { return errors.Is(err, errPromised) },
			Cleanup:  func() { cleaned = true }}
		ready := make(chan struct{})
		go func() {
			<-ready
			for _, s := range tc.signals {
				sigs <- s
			}
		}()
		var stderr strings.Builder
		code := Run(func(ctx context.Context) error { return tc.cmd(ctx, func() { close(ready) }) }, &stderr, o)
		if code != tc.code || !strings.Contains(stderr.String(), tc.say) || cleaned != tc.cleaned || (tc.say == "" && stderr.Len() > 0) {
			t.Errorf("%s: exit %d, stderr %q, cleaned %v; want %d, %q, %v", tc.name, code, stderr.String(), cleaned, tc.code, tc.say, tc.cleaned)
		}
	}
}
