package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay is how long a loop runs before it shows a bar: short
// evaluations stay as quiet as they were.
const progressDelay = 2 * time.Second

// progress reports a loop over total items on w with a bar, once the loop
// has run progressDelay, and only when w is a terminal (logs and pipes get
// nothing). Call step after each item and done at the end.
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
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || total <= 0 {
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
		p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.what),
			progressbar.OptionSetPredictTime(true), progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
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
