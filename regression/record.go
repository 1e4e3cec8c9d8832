package regression

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/google/renameio/v2"
)

// A Record is one finished run of a spec with one seed (seed 0: a spec
// without seeds), or one imported from a results file written before the
// runner existed (Source says which).
type Record struct {
	Spec    string             `json:"spec"`
	Command []string           `json:"command"`
	Seed    int                `json:"seed"`
	Metrics map[string]float64 `json:"metrics"`
	Date    string             `json:"date"`
	Machine string             `json:"machine,omitempty"`
	Version string             `json:"version,omitempty"`
	Minutes float64            `json:"minutes"`
	Source  *Source            `json:"source,omitempty"`
}

// Source says where an imported record's numbers were read: the file and
// line, the script that wrote them, and the commit that last changed that
// line (its date is the record's Date).
type Source struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Script string `json:"script"`
	Commit string `json:"commit"`
}

// recordFile is the JSON file of one spec's records.
type recordFile struct {
	Spec string   `json:"spec"`
	Runs []Record `json:"runs"`
}

// Records holds the runs of every spec, read from one folder holding a
// NAME.json file per spec.
type Records struct {
	dir  string
	runs map[string][]Record
}

// LoadRecords reads dir; a missing folder holds no records.
func LoadRecords(dir string) (*Records, error) {
	rs := &Records{dir: dir, runs: map[string][]Record{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var rf recordFile
		if err := json.Unmarshal(b, &rf); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if want := rf.Spec + ".json"; filepath.Base(f) != want {
			return nil, fmt.Errorf("%s: records of spec %q belong in %s", f, rf.Spec, want)
		}
		// Has and Add take a spec's runs to be its own, one per seed.
		seeds := map[int]bool{}
		for i, r := range rf.Runs {
			if r.Spec != rf.Spec {
				return nil, fmt.Errorf("%s: run %d is of spec %q, not %q", f, i+1, r.Spec, rf.Spec)
			}
			if seeds[r.Seed] {
				return nil, fmt.Errorf("%s: run %d: a second record of seed %d", f, i+1, r.Seed)
			}
			seeds[r.Seed] = true
		}
		rs.runs[rf.Spec] = rf.Runs
	}
	return rs, nil
}

// Runs returns spec's records, by seed.
func (rs *Records) Runs(spec string) []Record { return rs.runs[spec] }

// Has reports whether spec has a record for seed.
func (rs *Records) Has(spec string, seed int) bool {
	for _, r := range rs.runs[spec] {
		if r.Seed == seed {
			return true
		}
	}
	return false
}

// Specs returns the names of the specs with records.
func (rs *Records) Specs() []string {
	var out []string
	for s := range rs.runs {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Add stores r, replacing a record of the same seed, and writes its spec's
// file at once and atomically, so that an interrupted run loses at most the
// seed it was running.
func (rs *Records) Add(r Record) error {
	if r.Spec == "" {
		return errors.New("a record with no spec")
	}
	runs := slices.DeleteFunc(slices.Clone(rs.runs[r.Spec]), func(old Record) bool { return old.Seed == r.Seed })
	runs = append(runs, r)
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Seed < runs[j].Seed })
	rs.runs[r.Spec] = runs
	return rs.write(r.Spec)
}

func (rs *Records) write(spec string) error {
	if err := os.MkdirAll(rs.dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(recordFile{Spec: spec, Runs: rs.runs[spec]}, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(rs.dir, spec+".json")
	if err := renameio.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}

// exists reports whether p exists.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
