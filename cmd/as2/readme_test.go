package main

import (
	"bufio"
	"os"
	"testing"

	"github.com/as2/as2/regression"
)

// TestOldREADMECommandsParse keeps a promise of renames: every command the
// README showed before the front-door release (testdata/readme-commands.txt,
// taken from its code blocks) still parses, old flag and command names
// included, which now print deprecation warnings. It parses and does not run
// them: training and serving are tested elsewhere.
func TestOldREADMECommandsParse(t *testing.T) {
	f, err := os.Open("testdata/readme-commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		args, err := regression.SplitWords(sc.Text())
		if err != nil {
			t.Fatalf("readme-commands.txt:%d: %v", line, err)
		}
		if len(args) < 2 || args[0] != "as2" {
			continue
		}
		n++
		root := newRootCmd()
		cmd, rest, err := root.Find(args[1:])
		if err != nil {
			t.Errorf("readme-commands.txt:%d: %s: %v", line, sc.Text(), err)
			continue
		}
		if cmd == root {
			t.Errorf("readme-commands.txt:%d: %s: no such command", line, sc.Text())
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("readme-commands.txt:%d: %s: %v", line, sc.Text(), err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("parsed only %d commands", n)
	}
}
