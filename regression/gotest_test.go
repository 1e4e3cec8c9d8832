package regression

import (
	"bytes"
	"strings"
	"testing"

	"github.com/as2/as2/internal/shareddata"
)

func TestSummarizeTests(t *testing.T) {
	ev := func(action, pkg, test, output string) string {
		return `{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `","Output":` + jsonString(output) + "}\n"
	}
	in := ev("run", "p", "TestA", "") + ev("pass", "p", "TestA", "") +
		ev("output", "p", "TestFloor", "    x_test.go:3: "+shareddata.TierSkipMessage(shareddata.Quick)+"\n") + ev("skip", "p", "TestFloor", "") +
		ev("output", "p", "TestReal", "    x_test.go:9: "+shareddata.SkipDataPrefix+"AS2_DATA=/x not found\n") + ev("skip", "p", "TestReal", "") +
		ev("output", "p", "TestReal/sub", "") + ev("skip", "p", "TestReal/sub", "") +
		ev("skip", "p", "TestOther", "") +
		ev("output", "p", "", "ok  \tp\t0.1s\n") + ev("pass", "p", "", "") +
		ev("output", "q", "TestBad", "    bad_test.go:1: boom\n") + ev("fail", "q", "TestBad", "") +
		ev("output", "q", "", "FAIL\tq\t0.2s\n") + ev("fail", "q", "", "")
	var w bytes.Buffer
	s, err := SummarizeTests(strings.NewReader(in), &w)
	if err != nil {
		t.Fatal(err)
	}
	if s.Passed != 1 || s.Failed != 1 || s.Skipped != 3 || s.SkippedData != 1 || s.SkippedTier["quick"] != 1 || len(s.FailedPackages) != 1 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(w.String(), "boom") || !strings.Contains(w.String(), "ok  \tp") {
		t.Errorf("output:\n%s", w.String())
	}
	r := s.Report()
	for _, want := range []string{"1 tests skipped because the shared data is missing", "1 tests of the quick tier skipped", "regress run --tier quick", "FAIL: q"} {
		if !strings.Contains(r, want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
