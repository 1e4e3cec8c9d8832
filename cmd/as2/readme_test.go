package main

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"testing"
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
		args, err := splitShell(sc.Text())
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

// splitShell splits a command line as a POSIX shell would for the simple
// quoting the README uses: single and double quotes, no escapes inside.
func splitShell(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inArg := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unclosed quote")
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, nil
}
