package main

import (
	"io"

	"github.com/schollz/progressbar/v3"

	"github.com/as2/as2/bench"
	"github.com/as2/as2/dataset/download"
	"github.com/as2/as2/internal/termbar"
)

// progress is a loop's bar on a terminal (termbar.Loop); nil shows nothing.
type progress termbar.Loop

func newProgress(w io.Writer, total int, what string) *progress {
	return (*progress)(termbar.NewLoop(w, total, what))
}
func (p *progress) step(n int) { (*termbar.Loop)(p).Step(n) }
func (p *progress) done()      { (*termbar.Loop)(p).Done() }

// progressBars shows a bench loop's progress as a bar on w (quiet: none).
func progressBars(w io.Writer, quiet bool) bench.Progress {
	if quiet {
		return nil
	}
	return func(what string, total int) (func(int), func()) {
		l := termbar.NewLoop(w, total, what)
		return l.Step, l.Done
	}
}

// byteProgress is download.Options.Progress: a byte-counting bar per file on a terminal.
func byteProgress(w io.Writer) func(label string, size, done int64) download.Progress {
	if !termbar.Terminal(w) {
		return nil
	}
	return func(label string, size, done int64) download.Progress {
		bar := termbar.New(w, size, label, progressbar.OptionShowBytes(true), progressbar.OptionClearOnFinish())
		bar.Set64(done)
		return bar
	}
}
