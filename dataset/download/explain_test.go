package download

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	m := &Manifest{Datasets: []Dataset{
		{Name: "plain", Dir: "plain", Files: []File{{URL: "https://example.org/a.tsv", Path: "a.tsv"}}},
		{Name: "pkg", Dir: "pkg", Files: []File{{NPM: "p@1.0.0", Path: "p.tgz"}}},
	}}
	if got := m.withoutNPM(); !slices.Equal(got, []string{"plain"}) {
		t.Errorf("withoutNPM: %q", got)
	}
	if l := m.List(); !strings.Contains(l, "  plain") || !strings.Contains(l, "  pkg") {
		t.Errorf("List:\n%s", l)
	}
	if sets, err := m.Select([]string{"pkg", "plain"}); err != nil || len(sets) != 2 || sets[0].Name != "pkg" || sets[1].Name != "plain" {
		t.Errorf("Select: %v, %v", sets, err)
	}
	if _, err := m.Select([]string{"plain", "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Select of an unknown name: %v", err)
	}
	root := t.TempDir()
	plain, _ := m.Dataset("plain")
	pkg, _ := m.Dataset("pkg")
	cause := errors.New("boom")
	for _, tc := range []struct {
		name string
		d    *Dataset
		err  error
		want []string
	}{
		{"other", plain, cause, []string{"plain: boom"}},
		{"no npm", pkg, &NPMNotFoundError{Command: "npm", Spec: "p@1.0.0", Err: cause}, []string{"pkg: ", ": plain"}},
		{"unreachable", plain, &UnreachableError{File: "a.tsv", URL: "https://example.org/a.tsv", Host: "example.org", Err: cause}, []string{"plain: ", "copy these files by hand", filepath.Join(root, "plain", "a.tsv")}},
	} {
		err := m.ExplainGet(tc.d, root, tc.err)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v does not wrap %v", tc.name, err, tc.err)
		}
		for _, s := range tc.want {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v does not say %q", tc.name, err, s)
			}
		}
	}

	// InstallHint: a missing file gets the hint; once there, or for a
	// name with no download, the error is returned as it is.
	for _, tc := range []struct {
		name, dataset string
		present       bool
		hint          bool
	}{
		{"missing", "plain", false, true},
		{"present", "plain", true, false},
		{"no download", "jsonl", false, false},
	} {
		if tc.present {
			os.MkdirAll(filepath.Join(root, "plain"), 0o755)
			os.WriteFile(filepath.Join(root, "plain", "a.tsv"), nil, 0o644)
		}
		err := m.InstallHint(tc.dataset, root, cause)
		if !errors.Is(err, cause) || strings.Contains(err.Error(), "as2 data get") != tc.hint {
			t.Errorf("%s: %v, want a hint: %v", tc.name, err, tc.hint)
		}
	}
	if m.InstallHint("plain", root, nil) != nil {
		t.Error("InstallHint of no error is an error")
	}
}
