package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalStopsPromptly starts the real binary on one huge question (as
// a 354k-candidate JSONL question once kept as2 busy for minutes), sends it
// a signal while it reads or ranks, and checks that it exits within a
// second with a message, the signal's status and no output file.
func TestSignalStopsPromptly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds as2 and ranks 300k candidates (10 s)")
	}
	bin := buildAS2(t)
	in := filepath.Join(t.TempDir(), "big.jsonl")
	// Four questions, about 6.5 s of work: a signal 1.5 s in must find as2
	// still working on a quiet machine too (one question of 300,000 took
	// 1.7 s, and a longer line passes the reader's limit).
	writeBigQuestions(t, in, 4, 300_000)
	for _, tc := range []struct {
		sig    syscall.Signal
		name   string
		status int
		after  time.Duration // into the run: reading the file, or ranking
	}{
		{syscall.SIGTERM, "SIGTERM", 143, 300 * time.Millisecond},
		{syscall.SIGTERM, "SIGTERM", 143, 1500 * time.Millisecond},
		{syscall.SIGINT, "SIGINT", 130, 1000 * time.Millisecond},
	} {
		t.Run(fmt.Sprintf("%s after %v", tc.name, tc.after), func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "ranked.jsonl")
			cmd := exec.Command(bin, "rank", "--input", in, "--ranker", "bm25", "--output", out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				t.Fatalf("as2 finished before the signal (%v): make the input bigger", err)
			case <-time.After(tc.after):
			}
			sent := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("as2 still running 5 s after %s", tc.name)
			}
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.status {
				t.Fatalf("exit %v, want status %d; stderr:\n%s", err, tc.status, stderr.String())
			}
			if took > time.Second {
				t.Errorf("as2 took %v to exit after %s, want under a second", took, tc.name)
			}
			if !strings.Contains(stderr.String(), "as2: stopped by "+tc.name) {
				t.Errorf("stderr %q: no message naming the signal", stderr.String())
			}
			if left, _ := os.ReadDir(outDir); len(left) != 0 {
				t.Errorf("left behind in the output folder: %v", left)
			}
			t.Logf("exited %v after %s", took, tc.name)
		})
	}
}

// writeBigQuestions writes qs JSONL questions with n short candidates each.
func writeBigQuestions(t *testing.T, path string, qs, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	words := strings.Fields("the berlin wall was built in 1961 and fell on 9 november 1989 when crowds crossed it city capital germany east west")
	cands := make([]string, n)
	for i := range cands {
		var b strings.Builder
		for j := 0; j < 12; j++ {
			b.WriteString(words[(i*7+j*13+i/(j+1))%len(words)])
			b.WriteByte(' ')
		}
		cands[i] = b.String()
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for q := range qs {
		if err := enc.Encode(map[string]any{"id": fmt.Sprintf("big-%d", q), "question": "when did the berlin wall fall?", "candidates": cands}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
