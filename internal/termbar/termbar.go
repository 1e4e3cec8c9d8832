// Package termbar draws the progress bars of as2's long loops, only on a
// terminal (logs and pipes get nothing), and only once a loop has run a
// while, so that short runs stay as quiet as they were.
package termbar

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Delay is how long a loop runs before it shows a bar.
const Delay = 2 * time.Second

// Terminal tells whether w is a terminal.
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New is every bar in one look: on w, with its time predicted and redrawn
// at most ten times a second.
func New(w io.Writer, total int64, what string, opts ...progressbar.Option) *progressbar.ProgressBar {
	return progressbar.NewOptions64(total, append([]progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30), progressbar.OptionThrottle(100 * time.Millisecond)}, opts...)...)
}

// Loop reports a loop over total items with a bar, once the loop has run
// Delay. Call Step after each item and Done at the end; a nil *Loop does
// nothing.
type Loop struct {
	w     io.Writer
	total int
	start time.Time
	bar   *progressbar.ProgressBar
	what  string
}

// NewLoop returns nil when w is not a terminal or there are no items.
func NewLoop(w io.Writer, total int, what string) *Loop {
	if !Terminal(w) || total <= 0 {
		return nil
	}
	return &Loop{w: w, total: total, start: time.Now(), what: what}
}

// Step records that n items are done.
func (l *Loop) Step(n int) {
	if l == nil {
		return
	}
	if l.bar == nil {
		if time.Since(l.start) < Delay || n >= l.total {
			return
		}
		l.bar = New(l.w, int64(l.total), l.what, progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	}
	l.bar.Set(n)
}

// StepDone is Step, and Done once all total items are done: for a loop
// whose end is known only to its steps.
func (l *Loop) StepDone(n int) {
	if l.Step(n); l != nil && n >= l.total {
		l.Done()
	}
}

// Done clears the bar, if one was shown.
func (l *Loop) Done() {
	if l != nil && l.bar != nil {
		l.bar.Finish()
	}
}

// Steps is the bar of a run whose number of steps may change as it goes
// (training: steps per epoch); a nil *Steps does nothing.
type Steps struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

// NewSteps returns nil when w is not a terminal.
func NewSteps(w io.Writer) *Steps {
	if !Terminal(w) {
		return nil
	}
	return &Steps{w, New(w, 1, "", progressbar.OptionShowCount())}
}

// Set shows step of steps, described by what.
func (s *Steps) Set(step, steps int, what string) {
	if s == nil {
		return
	}
	if s.bar.GetMax() != steps {
		s.bar.ChangeMax(steps)
	}
	s.bar.Describe(what)
	s.bar.Set(step)
}

// Clear takes the bar off the line, for a line of text to take its place.
func (s *Steps) Clear() {
	if s != nil {
		s.bar.Clear()
	}
}

// Finish ends the bar and its line.
func (s *Steps) Finish() {
	if s != nil {
		s.bar.Finish()
		io.WriteString(s.w, "\n")
	}
}
