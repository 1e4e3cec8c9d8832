package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/as2/as2/model"
)

// TestHelpDefaults walks every command and flag and checks that each
// default a flag's usage states is its real default: as2 --help must not
// say one thing and do another (search --ef-search once said "default: the
// index's" while pflag added "(default 100)" from the flag's value).
func TestHelpDefaults(t *testing.T) {
	checked := 0
	for _, m := range defaultMismatches(newRootCmd(), model.Names(), &checked) {
		t.Error(m)
	}
	if checked == 0 {
		t.Fatal("no flag states a default: the parser finds nothing")
	}
	t.Logf("%d stated defaults checked", checked)
}

// TestHelpDefaultsFindsMismatches plants false defaults in a command of
// its own and checks that each is reported, naming command and flag.
func TestHelpDefaultsFindsMismatches(t *testing.T) {
	root := &cobra.Command{Use: "as2"}
	sub := &cobra.Command{Use: "search", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sub)
	f := sub.Flags()
	// The false ones.
	f.Int("ef-search", 100, "hnsw index: candidates a search keeps (default: the index's)")
	f.Int("top", 10, "answers per question (default 5)")
	f.Int("rescore", 0, "binary index: codes rescored (default 40)")
	f.Duration("grace", 30*time.Second, "time allowed (defaults to 10s)")
	f.Float64("lr", 0, "ca: learning rate (default 0.1); nosucharch: its rate (default 0.2)")
	f.String("format", "tsv", "output: tsv or json (default json)")
	// The true ones.
	f.Int("k", 10, "answers (default 10)")
	f.Float64("delta", 1e-6, "coefficient (default 1e-06)")
	f.Duration("drain", 5*time.Second, "drain (default 5s)")
	f.IntSlice("widths", []int{1, 2}, "widths (default [1,2])")
	f.String("mirror", "", "fetch from the mirror (default $AS2_DATA_MIRROR)")
	f.Int("ef", 0, "candidates a search keeps (default: the index's own)")
	f.Int("kernel", 0, "ca: convolution width (default 5); cosinet: its width (default ca: 3, cosinet: 5)")
	f.String("ranker", "builtin", "the built-in model is the default of rank and serve")
	got := defaultMismatches(root, []string{"ca", "cosinet"}, new(int))
	for _, flag := range []string{"ef-search", "top", "rescore", "grace", "lr", "format"} {
		found := false
		for _, m := range got {
			found = found || strings.HasPrefix(m, "as2 search --"+flag+":")
		}
		if !found {
			t.Errorf("the false default of --%s is not reported; reported:\n%s", flag, strings.Join(got, "\n"))
		}
	}
	if len(got) != 6 {
		t.Errorf("%d mismatches reported, want 6:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// defaultMismatches describes each flag of root and its subcommands whose
// usage states a default that is not its real one; checked counts the
// stated defaults. A flag whose value is its type's zero ("", 0, false, [])
// is one that was not set, and its usage may say in words what that means
// ("default: the index's own"), which only the command's code knows; a
// literal there (an int flag's "default 100") is false all the same. A
// flag with another value is shown by pflag with "(default VALUE)", so a
// usage stating any other default contradicts itself. Training flags state
// one default per architecture ("ca: ... (default 150); cosinet: ...",
// "(default ca: 0, compclip: 5)"), taken from the architectures' recipes:
// those must name architectures that exist (archs).
func defaultMismatches(root *cobra.Command, archs []string, checked *int) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			for _, st := range statedDefaults(f.Usage) {
				*checked++
				if msg := checkDefault(f, st, archs); msg != "" {
					out = append(out, fmt.Sprintf("%s --%s: usage states default %q: %s", c.CommandPath(), f.Name, st.value, msg))
				}
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// stated is one default a usage states: its value and the part of the
// usage (between "; ") it sits in, which may begin with architecture names.
type stated struct{ value, part string }

// defaultWord finds "default", "default:", "defaults to" and "Default".
var defaultWord = regexp.MustCompile(`(?i)\bdefaults?(\s+to\b|:)?`)

// statedDefaults returns the defaults usage states, each up to the ")" or
// ";" that ends its clause. "the default of X" and "X's default" say what
// something else is the default of, not this flag's default.
func statedDefaults(usage string) []stated {
	var out []stated
	for _, loc := range defaultWord.FindAllStringIndex(usage, -1) {
		before, after := usage[:loc[0]], usage[loc[1]:]
		if strings.HasPrefix(strings.TrimSpace(after), "of ") || strings.HasSuffix(before, "'s ") {
			continue
		}
		depth, end := 0, len(after)
	scan:
		for i, r := range after {
			switch r {
			case '(':
				depth++
			case ')':
				if depth == 0 {
					end = i
					break scan
				}
				depth--
			case ';':
				if depth == 0 {
					end = i
					break scan
				}
			}
		}
		v := strings.Trim(strings.TrimSpace(after[:end]), ",.:` \"")
		if v == "" {
			continue
		}
		out = append(out, stated{value: v, part: partOf(before)})
	}
	return out
}

// partOf returns the part of a usage that the text before a stated
// default ends in: the parts are separated by "; " outside parentheses,
// and one that begins "NAME, NAME: " runs on until the next such part
// (an architecture's usage may hold "; " of its own).
func partOf(before string) string {
	var starts []int
	d := 0
	starts = append(starts, 0)
	for i, r := range before {
		switch r {
		case '(':
			d++
		case ')':
			d--
		case ';':
			if d == 0 {
				starts = append(starts, i+1)
			}
		}
	}
	for k := len(starts) - 1; k >= 0; k-- {
		part := strings.TrimSpace(before[starts[k]:])
		if _, ok := prefixNames(part); ok {
			return part
		}
	}
	return strings.TrimSpace(before[starts[len(starts)-1]:])
}

// checkDefault says what is wrong with one stated default of f ("": nothing).
func checkDefault(f *pflag.Flag, st stated, archs []string) string {
	typ := f.Value.Type()
	if !isZero(typ, f.DefValue) {
		if sameValue(typ, st.value, f.DefValue) {
			return ""
		}
		return fmt.Sprintf("the flag's default is %q (and --help adds \"(default %s)\")", f.DefValue, f.DefValue)
	}
	// Per-architecture defaults: "(default ca: 0, compclip: 5)", or one
	// default in a part that begins "ca, compclip: ...".
	if names, ok := nameList(st.value); ok {
		return unknownArchs(names, archs)
	}
	if names, ok := prefixNames(st.part); ok && slices.ContainsFunc(names, func(n string) bool { return slices.Contains(archs, n) }) {
		return unknownArchs(names, archs)
	}
	// Unset is the zero value: a literal of the flag's type other than
	// that is a default the flag does not have.
	if isLiteral(typ, st.value) && !sameValue(typ, st.value, f.DefValue) {
		return fmt.Sprintf("the flag's default is %q: leaving it out does not mean %s", f.DefValue, st.value)
	}
	return ""
}

// nameList splits a value of the form "NAME: V, NAME: V" into its names.
func nameList(v string) ([]string, bool) {
	var names []string
	for _, e := range strings.Split(v, ", ") {
		name, _, ok := strings.Cut(e, ": ")
		if !ok || !isName(name) {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// prefixNames splits a part's "NAME, NAME: " prefix into its names.
func prefixNames(part string) ([]string, bool) {
	head, _, ok := strings.Cut(part, ": ")
	if !ok {
		return nil, false
	}
	names := strings.Split(head, ", ")
	for _, n := range names {
		if !isName(n) {
			return nil, false
		}
	}
	return names, true
}

func isName(s string) bool { return s != "" && !strings.ContainsAny(s, " ()$/<>") }

// unknownArchs reports the names that are not architectures.
func unknownArchs(names, archs []string) string {
	var unknown []string
	for _, n := range names {
		if !slices.Contains(archs, n) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("a default for %s, which is not an architecture (have %s)", strings.Join(unknown, ", "), strings.Join(archs, ", "))
}

// isZero reports whether def is the zero value of a flag of type typ.
func isZero(typ, def string) bool {
	switch def {
	case "", "0", "false", "[]", "0s":
		return true
	}
	if f, err := strconv.ParseFloat(def, 64); err == nil && f == 0 && typ != "string" {
		return true
	}
	return false
}

// isLiteral reports whether v, all of it, is a value of a flag of type
// typ. Any text is a string, so string flags have no literals to check.
func isLiteral(typ, v string) bool {
	var err error
	switch typ {
	case "int", "int32", "int64", "uint", "uint64", "count":
		_, err = strconv.ParseInt(v, 10, 64)
	case "float64", "float32":
		_, err = strconv.ParseFloat(v, 64)
	case "bool":
		_, err = strconv.ParseBool(v)
	case "duration":
		_, err = time.ParseDuration(v)
	case "intSlice", "floatSlice", "float64Slice":
		for _, e := range strings.Split(strings.Trim(v, "[]"), ",") {
			if _, err = strconv.ParseFloat(strings.TrimSpace(e), 64); err != nil {
				break
			}
		}
	default:
		return false
	}
	return err == nil
}

// sameValue compares a stated default with a flag's DefValue as values of
// type typ: 1e-6 is 1e-06, [1, 2] is [1,2], 5000ms is 5s.
func sameValue(typ, stated, def string) bool {
	stated = strings.Trim(stated, "\"'`")
	if stated == def {
		return true
	}
	switch typ {
	case "float64", "float32", "int", "int32", "int64", "uint", "uint64":
		a, err1 := strconv.ParseFloat(stated, 64)
		b, err2 := strconv.ParseFloat(def, 64)
		return err1 == nil && err2 == nil && a == b
	case "duration":
		a, err1 := time.ParseDuration(stated)
		b, err2 := time.ParseDuration(def)
		return err1 == nil && err2 == nil && a == b
	case "intSlice", "floatSlice", "float64Slice", "stringSlice", "stringArray":
		norm := func(s string) string {
			return strings.ReplaceAll(strings.Trim(s, "[]"), " ", "")
		}
		return norm(stated) == norm(def)
	}
	return false
}
