package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/as2/as2/bench"
	"github.com/as2/as2/dataset/download"
)

// progressDelay is how long a loop runs before it shows a bar: short
// evaluations stay as quiet as they were.
const progressDelay = 2 * time.Second

// terminal tells whether w is a terminal: only there do bars show (logs and
// pipes get nothing).
func terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar is every bar of the command, in one look: on w, with its time
// predicted and redrawn at most ten times a second.
func newBar(w io.Writer, total int64, what string, opts ...progressbar.Option) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total, append([]progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100 * time.Millisecond)}, opts...)...)
}

// progress reports a loop over total items on w with a bar, once the loop
// has run progressDelay, and only on a terminal. Call step after each item
// and done at the end.
type progress struct {
	w     io.Writer
	total int
	start time.Time
	bar   *progressbar.ProgressBar
	what  string
}

// newProgress returns nil (whose methods do nothing) when w is not a
// terminal.
func newProgress(w io.Writer, total int, what string) *progress {
	if !terminal(w) || total <= 0 {
		return nil
	}
	return &progress{w: w, total: total, start: time.Now(), what: what}
}

// step records that n items are done.
func (p *progress) step(n int) {
	if p == nil {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < progressDelay || n >= p.total {
			return
		}
		p.bar = newBar(p.w, int64(p.total), p.what, progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	p.bar.Set(n)
}

// done clears the bar, if one was shown.
func (p *progress) done() {
	if p == nil || p.bar == nil {
		return
	}
	p.bar.Finish()
}

// progressBars shows a bench loop's progress as a bar on w (see
// newProgress: only on a terminal).
func progressBars(w io.Writer) bench.Progress {
	return func(what string, total int) (func(int), func()) {
		p := newProgress(w, total, what)
		return p.step, p.done
	}
}

// byteProgress returns download.Options.Progress for w: a byte-counting bar
// per file on a terminal, nothing elsewhere (logs get the one line per file
// that Options.Log writes).
func byteProgress(w io.Writer) func(label string, size, done int64) download.Progress {
	if !terminal(w) {
		return nil
	}
	return func(label string, size, done int64) download.Progress {
		bar := newBar(w, size, label, progressbar.OptionShowBytes(true), progressbar.OptionClearOnFinish())
		bar.Set64(done)
		return bar
	}
}
