package regression

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/google/renameio/v2"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gonum.org/v1/gonum/stat"
)

// meanStd is the mean and sample standard deviation of xs; one value's
// deviation is 0 (gonum's is NaN), none's mean NaN.
func meanStd(xs []float64) (float64, float64) {
	switch len(xs) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return xs[0], 0
	}
	return stat.MeanStdDev(xs, nil)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// values returns metric m of every record that has it.
func values(runs []Record, m string) []float64 {
	var out []float64
	for _, r := range runs {
		if v, ok := r.Metrics[m]; ok {
			out = append(out, v)
		}
	}
	return out
}

// english writes numbers with thousands separators: 1,234,567.
var english = message.NewPrinter(language.English)

// cell formats a column's metric over runs.
func cell(c Column, runs []Record) string {
	xs := values(runs, c.Metric)
	if len(xs) == 0 {
		return "–"
	}
	m, sd := meanStd(xs)
	switch c.Format {
	case "mean-std":
		if len(xs) == 1 {
			return fmt.Sprintf("%.2f", 100*m)
		}
		return fmt.Sprintf("%.2f ± %.2f", 100*m, 100*sd)
	case "pct":
		return fmt.Sprintf("%.2f", 100*m)
	case "count":
		return english.Sprintf("%d", int64(math.Round(m)))
	case "median":
		return fmt.Sprintf("%.1f", median(xs))
	case "median0":
		return fmt.Sprintf("%.0f", median(xs))
	case "frac":
		return fmt.Sprintf("%.4f", m)
	case "num2": // a mean length or a percentage already ×100
		return fmt.Sprintf("%.2f", m)
	case "pass":
		pass := 0
		for _, x := range xs {
			if x == 1 {
				pass++
			}
		}
		return fmt.Sprintf("%d/%d", pass, len(xs))
	}
	return "?"
}

var templateRE = regexp.MustCompile(`\{([a-z0-9][a-z0-9.-]*):([a-z0-9@_]+)(?::([a-z0-9-]+))?\}`)

// expandCell replaces the {SPEC:METRIC[:FORMAT]} in a view's cell.
func (ss *Specs) expandCell(c string, rs *Records) string {
	return templateRE.ReplaceAllStringFunc(c, func(m string) string {
		p := templateRE.FindStringSubmatch(m)
		s := ss.Spec(p[1])
		format := p[3]
		if format == "" {
			format = "pct"
			if s != nil && len(s.Seeds) > 1 {
				format = "mean-std"
			}
		}
		return cell(Column{Metric: p[2], Format: format}, rs.Runs(p[1]))
	})
}

// Markdown renders t from rs: a view line by line; a table of specs one
// line per row with records (reference rows always), in the spec's order. A
// row with fewer seeds recorded than its spec asks says how many it has.
func (ss *Specs) Markdown(t *Table, rs *Records) string {
	if len(t.Lines) == 0 {
		return t.markdown(rs)
	}
	var b strings.Builder
	t.writeHeader(&b)
	for _, line := range t.Lines {
		cells := make([]string, len(line))
		for i, c := range line {
			cells[i] = ss.expandCell(c, rs)
		}
		writeRow(&b, cells)
	}
	return b.String()
}

// writeHeader writes t's headings and the line under them.
func (t *Table) writeHeader(b *strings.Builder) {
	heads := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		heads[i] = c.Head
	}
	writeRow(b, heads)
	b.WriteString("|" + strings.Repeat("---|", len(t.Columns)) + "\n")
}

// writeRow writes one line of a Markdown table; an empty cell is "| |".
func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		if c == "" {
			b.WriteString(" |")
		} else {
			b.WriteString(" " + c + " |")
		}
	}
	b.WriteString("\n")
}

// markdown renders a table of specs from rs (see Specs.Markdown).
func (t *Table) markdown(rs *Records) string {
	var b strings.Builder
	t.writeHeader(&b)
	for i := range t.Rows {
		s := &t.Rows[i]
		runs := rs.Runs(s.Name)
		if s.Kind != KindReference && len(runs) == 0 {
			continue
		}
		label := s.Label
		if n := len(s.Seeds); s.Kind != KindReference && n > 1 && len(runs) < n {
			if len(runs) == 1 {
				label += " (1 seed)"
			} else {
				label += fmt.Sprintf(" (%d seeds)", len(runs))
			}
		}
		cells := []string{label}
		for _, c := range t.Columns[1:] {
			v := s.Cells[c.Head]
			if c.Metric != "" && s.Kind != KindReference {
				v = cell(c, runs)
			}
			cells = append(cells, v)
		}
		writeRow(&b, cells)
	}
	return b.String()
}

// A Failure is a spec whose records miss an expected metric.
type Failure struct {
	Spec, Metric      string
	Got, Want, Tol    float64
	Seeds             int
	Missing, NoRecord bool
}

func (f Failure) String() string {
	switch {
	case f.NoRecord:
		return fmt.Sprintf("%s: no records (regress run %s)", f.Spec, f.Spec)
	case f.Missing:
		return fmt.Sprintf("%s: %s not in its records", f.Spec, f.Metric)
	}
	return fmt.Sprintf("%s: %s %.4f over %d runs, expected %.4f ± %.4f", f.Spec, f.Metric, f.Got, f.Seeds, f.Want, f.Tol)
}

// Check compares each spec's records with its expected metrics: the mean
// over its runs must lie within the tolerance. A spec with no records is a
// failure when requireRecords is set, and skipped otherwise.
func Check(specs []*Spec, rs *Records, requireRecords bool) []Failure {
	var out []Failure
	for _, s := range specs {
		runs := rs.Runs(s.Name)
		if len(runs) == 0 {
			if requireRecords {
				out = append(out, Failure{Spec: s.Name, NoRecord: true})
			}
			continue
		}
		ms := make([]string, 0, len(s.Expected))
		for m := range s.Expected {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		for _, m := range ms {
			e := s.Expected[m]
			xs := values(runs, m)
			if len(xs) == 0 {
				out = append(out, Failure{Spec: s.Name, Metric: m, Missing: true})
				continue
			}
			got, _ := meanStd(xs)
			// Half a unit of the last printed decimal of slack, so that a
			// tolerance of 0 means "the same to four decimals".
			if math.Abs(got-e.Value) > e.Tol+5e-5 {
				out = append(out, Failure{Spec: s.Name, Metric: m, Got: got, Want: e.Value, Tol: e.Tol, Seeds: len(xs)})
			}
		}
	}
	return out
}

var markerRE = regexp.MustCompile(`(?m)^<!-- regress:(begin|end) ([a-z0-9][a-z0-9.-]*) -->[ \t]*$`)

// FillDocs replaces the text between each pair of markers
// `<!-- regress:begin NAME -->` and `<!-- regress:end NAME -->` in doc with
// table NAME rendered from rs. It returns the new text and the names of the
// tables whose text changed.
func FillDocs(doc []byte, ss *Specs, rs *Records) ([]byte, []string, error) {
	locs := markerRE.FindAllSubmatchIndex(doc, -1)
	var out bytes.Buffer
	var changed []string
	last := 0
	for i := 0; i < len(locs); i++ {
		l := locs[i]
		kind, name := string(doc[l[2]:l[3]]), string(doc[l[4]:l[5]])
		line := 1 + bytes.Count(doc[:l[0]], []byte("\n"))
		if kind != "begin" {
			return nil, nil, fmt.Errorf("line %d: regress:end %s with no begin", line, name)
		}
		if i+1 >= len(locs) {
			return nil, nil, fmt.Errorf("line %d: regress:begin %s with no end", line, name)
		}
		e := locs[i+1]
		if string(doc[e[2]:e[3]]) != "end" || string(doc[e[4]:e[5]]) != name {
			return nil, nil, fmt.Errorf("line %d: regress:begin %s is closed by %s", line, name, doc[e[0]:e[1]])
		}
		t := ss.TableNamed(name)
		if t == nil {
			return nil, nil, fmt.Errorf("line %d: no table %q in the specs (regress list names them)", line, name)
		}
		bodyStart := l[1]
		if bodyStart < len(doc) && doc[bodyStart] == '\n' {
			bodyStart++
		}
		want := ss.Markdown(t, rs)
		if string(doc[bodyStart:e[0]]) != want {
			changed = append(changed, name)
		}
		out.Write(doc[last:l[1]])
		out.WriteString("\n" + want)
		last = e[0]
		i++
	}
	out.Write(doc[last:])
	return out.Bytes(), changed, nil
}

// UpdateDocs fills the tables of every file. With check set it writes
// nothing. It returns "FILE: NAME" for each table that differed (and, unless
// check, was rewritten).
func UpdateDocs(files []string, ss *Specs, rs *Records, check bool) ([]string, error) {
	var diffs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		nb, changed, err := FillDocs(b, ss, rs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, n := range changed {
			diffs = append(diffs, f+": "+n)
		}
		if !check && len(changed) > 0 {
			st, err := os.Stat(f)
			if err != nil {
				return nil, err
			}
			if err := renameio.WriteFile(f, nb, st.Mode().Perm()); err != nil {
				return nil, fmt.Errorf("writing %s: %w", f, err)
			}
		}
	}
	return diffs, nil
}

// DocFiles returns the Markdown files that may hold tables under root:
// README.md and every *.md under docs/.
func DocFiles(root string) ([]string, error) {
	var out []string
	if p := filepath.Join(root, "README.md"); exists(p) {
		out = append(out, p)
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
