package reqa

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/dataset/squad"
	"github.com/as2/as2/internal/shareddata"
)

// tiny is a SQuAD file with two articles: a sentence repeated inside a
// paragraph, the same sentence in two paragraphs, an answer spanning two
// sentences (gold: the one holding its start), and a question asked twice.
const tiny = `{"version":"1.1","data":[
{"title":"A","paragraphs":[
 {"context":"Paris is in France. It is big. It is big. Rome is old.","qas":[
  {"id":"q1","question":"Where is Paris?","answers":[{"text":"France","answer_start":12},{"text":"in France","answer_start":9}]},
  {"id":"q2","question":"How big?","answers":[{"text":"big. Rome","answer_start":26}]}]},
 {"context":"Rome is old. Cats purr.","qas":[
  {"id":"q3","question":"What purrs?","answers":[{"text":"Cats","answer_start":13}]},
  {"id":"q4","question":"Where is Paris?","answers":[{"text":"old","answer_start":8}]}]}]}]}`

func TestBuild(t *testing.T) {
	ps, err := squad.ReadParagraphs(strings.NewReader(tiny), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(ps, "dev")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range p.Answers {
		ids = append(ids, a.ID+":"+a.Text)
	}
	wantIDs := []string{"p0-0:Paris is in France.", "p0-1:It is big.", "p0-3:Rome is old.", "p1-0:Rome is old.", "p1-1:Cats purr."}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Errorf("answers %q, want %q", ids, wantIDs)
	}
	want := []Question{
		// q4 has q1's text: merged, gold joined; "Rome is old." is in
		// two paragraphs: both gold.
		{ID: "q1", Text: "Where is Paris?", Gold: []string{"p0-0", "p0-3", "p1-0"}},
		// the answer starts in the repeated sentence (its second copy).
		{ID: "q2", Text: "How big?", Gold: []string{"p0-1"}},
		{ID: "q3", Text: "What purrs?", Gold: []string{"p1-1"}},
	}
	if !reflect.DeepEqual(p.Questions, want) {
		t.Errorf("questions\n%+v, want\n%+v", p.Questions, want)
	}

	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf, "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, p) {
		t.Errorf("round trip: got %+v, want %+v", back, p)
	}
}

func TestReadErrors(t *testing.T) {
	const h = `{"type":"header","format":"as2-reqa","version":1,"source":"s","split":"dev","answers":1,"questions":1}` + "\n"
	const a = `{"type":"answer","id":"a","text":"t","paragraph":0,"article":"A"}` + "\n"
	const q = `{"type":"question","id":"q","text":"t","gold":["a"]}` + "\n"
	if _, err := Read(strings.NewReader(h+a+q), "ok"); err != nil {
		t.Fatalf("valid file: %v", err)
	}
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "f: empty file"},
		{"no header", a, "f:1: not an as2-reqa header"},
		{"other format", `{"type":"header","format":"x","version":1}`, "f:1: not an as2-reqa file"},
		{"version", strings.Replace(h, `"version":1`, `"version":2`, 1), "f:1: as2-reqa version 2: this build reads version 1"},
		{"huge count", strings.Replace(h, `"answers":1`, `"answers":1000000000000`, 1), "f:1: header: impossible counts"},
		{"unknown type", h + `{"type":"x"}`, `f:2: unknown line type "x"`},
		{"not json", h + `{`, "f:2: not JSON"},
		{"unknown field", h + `{"type":"answer","id":"a","text":"t","bogus":1}`, `f:2: bad JSON: json: unknown field "bogus"`},
		{"repeated answer", strings.Replace(h, `"answers":1`, `"answers":2`, 1) + a + a, `f:3: answer "a": repeated id`},
		{"empty text", h + `{"type":"answer","id":"a","text":""}`, `f:2: answer "a": empty text`},
		{"unknown gold", h + a + `{"type":"question","id":"q","text":"t","gold":["b"]}`, `f:3: question "q": gold answer "b" is not in the pool`},
		{"no gold", h + a + `{"type":"question","id":"q","text":"t","gold":[]}`, `f:3: question "q": no gold answer`},
		{"answer after question", h + a + q + a, "f:4: an answer after the questions"},
		{"truncated", h + a, "f: file is truncated: 1 answers and 0 questions where the header says 1 and 1"},
		{"too many", h + a + q + strings.Replace(q, `"id":"q"`, `"id":"r"`, 1), "f:4: more questions than the header's 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "f")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error starting %q", err, tc.want)
			}
			var pe *dataset.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%T is not a *dataset.ParseError", err)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	ps, err := squad.ReadParagraphs(strings.NewReader(tiny), "tiny")
	if err != nil {
		f.Fatal(err)
	}
	p, err := Build(ps, "dev")
	if err != nil {
		f.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"type":"header","format":"as2-reqa","version":1,"answers":0,"questions":0}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := Read(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		// What Read accepts, Write writes and Read reads back the same.
		var out bytes.Buffer
		if err := p.Write(&out); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&out, "again")
		if err != nil {
			t.Fatalf("rereading what was written: %v", err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Fatalf("round trip changed the pool")
		}
	})
}

// TestSQuADDev builds the real pools: their sizes, and that the halves
// split the full pool's answers and questions between them.
func TestSQuADDev(t *testing.T) {
	dir := shareddata.Dir(t)
	full, err := Load(dir+"/squad", "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Questions) != 10539 {
		t.Errorf("%d questions, want 10539 (10,570 with repeated texts merged, the ENDX paper's Table 1)", len(full.Questions))
	}
	t.Logf("full pool: %d answers, %d questions", len(full.Answers), len(full.Questions))
	na, nq := 0, 0
	for _, half := range []string{"train", "test"} {
		p, err := Load(dir+"/squad", half)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s half: %d answers, %d questions", half, len(p.Answers), len(p.Questions))
		na += len(p.Answers)
		nq += len(p.Questions)
	}
	if na != len(full.Answers) {
		t.Errorf("halves hold %d answers, the full pool %d", na, len(full.Answers))
	}
	if nq < len(full.Questions) {
		t.Errorf("halves hold %d questions, fewer than the full pool's %d", nq, len(full.Questions))
	}
}

// TestLoadDefaults checks Load's defaults: dev for no split, and the data
// folder's squad for no path.
func TestLoadDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("AS2_DATA", dir)
	file := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(file, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, split string
		want        string // the pool's split, or an error's text
		err         bool
	}{
		{file, "", "dev", false},
		{file, "test", "test", false},
		{"", "", filepath.Join(dir, "squad", "dev-v1.1.json.zip"), true},
		{dir, "middle", `unknown split "middle"`, true},
	}
	for _, tc := range tests {
		p, err := Load(tc.path, tc.split)
		switch {
		case tc.err && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Load(%q, %q): %v, want an error with %q", tc.path, tc.split, err, tc.want)
		case !tc.err && (err != nil || p.Split != tc.want || len(p.Questions) == 0):
			t.Errorf("Load(%q, %q): %v, want a pool of split %q", tc.path, tc.split, err, tc.want)
		}
	}
}
