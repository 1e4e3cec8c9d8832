package embed

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAdd(t *testing.T) {
	v := New(2)
	if err := v.Add("a", []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		word string
		vec  []float32
		want string
	}{
		{"b", []float32{1}, "embed: 1 values, want 2"},
		{"a", []float32{3, 4}, `embed: duplicate word "a"`},
		{"", []float32{3, 4}, "embed: empty word"},
		{"\xff", []float32{3, 4}, `embed: word "\xff" is not valid UTF-8`},
		{"c", []float32{float32(math.NaN()), 4}, `embed: value 1 of "c" is NaN: values must be finite`},
		{"c", []float32{3, float32(math.Inf(1))}, `embed: value 2 of "c" is +Inf: values must be finite`},
		{strings.Repeat("x", MaxWordLen+1), []float32{3, 4}, "embed: word of 65537 bytes, longer than 65536"},
	}
	for _, c := range cases {
		if err := v.Add(c.word, c.vec); err == nil || err.Error() != c.want {
			t.Errorf("Add(%.10q, %v) = %v, want %s", c.word, c.vec, err, c.want)
		}
	}
	if v.Len() != 1 || len(v.Data) != 2 {
		t.Fatalf("failed Adds changed the table: %d words, %d values", v.Len(), len(v.Data))
	}
	if err := New(0).Add("a", nil); err == nil || err.Error() != "embed: dimension 0 out of range 1..65536" {
		t.Errorf("New(0).Add: %v", err)
	}
	// A struct literal works too: Add builds the index.
	lit := &Vectors{Dim: 1, Words: []string{"x"}, Data: []float32{5}}
	if err := lit.Add("x", []float32{1}); err == nil {
		t.Error("Add of a word of a literal table: no error")
	}
	if err := lit.Add("y", []float32{1}); err != nil {
		t.Error(err)
	}
	if i, ok := lit.Index("x"); !ok || i != 0 {
		t.Errorf("Index(x) = %d, %v", i, ok)
	}
}

func TestAddCopies(t *testing.T) {
	v := New(2)
	vec := []float32{1, 2}
	v.Add("a", vec)
	vec[0] = 9
	got, ok := v.Lookup("a")
	if !ok || got[0] != 1 {
		t.Fatalf("Lookup(a) = %v, %v; Add kept the caller's slice", got, ok)
	}
	if _, ok := v.Lookup("A"); ok {
		t.Error("Lookup is not exact")
	}
	if cap(v.Vector(0)) != 2 {
		t.Errorf("Vector(0) has capacity %d: an append would overwrite row 1", cap(v.Vector(0)))
	}
}

func TestKeep(t *testing.T) {
	v := fixture(t)
	k := v.Keep(func(w string) bool { return w == "東京" || w == "the" })
	if k.Len() != 2 || k.Words[0] != "the" || k.Words[1] != "東京" {
		t.Fatalf("Keep: %q", k.Words)
	}
	want, _ := v.Lookup("東京")
	got, _ := k.Lookup("東京")
	if !slicesEqual(got, want) {
		t.Fatalf("Keep: %v, want %v", got, want)
	}
	got[0] = 42 // a copy, not a view of v
	if want[0] == 42 {
		t.Fatal("Keep shares data with the original")
	}
	if err := k.Add("new", []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if _, ok := v.Index("new"); ok {
		t.Fatal("Keep shares the index with the original")
	}
}

func TestNormalized(t *testing.T) {
	v := fixture(t)
	n := v.Normalized()
	for i, w := range v.Words {
		row := n.Vector(i)
		var ss float64
		for _, x := range row {
			ss += float64(x) * float64(x)
		}
		if w == "n't" || w == "zürich" { // zeros stay zero; MaxFloat32 overflows float32 norms but not float64 ones
			if w == "n't" && ss != 0 {
				t.Errorf("%q: zero row became %v", w, row)
			}
			continue
		}
		if math.Abs(ss-1) > 1e-6 {
			t.Errorf("%q: squared norm %v", w, ss)
		}
		if c := Cosine(row, v.Vector(i)); math.Abs(float64(c)-1) > 1e-6 {
			t.Errorf("%q: normalized row is not parallel (cosine %v)", w, c)
		}
	}
	if err := n.Add("x", []float32{1, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if v.Len() != 5 || n.Len() != 6 {
		t.Fatal("Normalized shares words or index with the original")
	}
}

func TestIdentity(t *testing.T) {
	v := fixture(t)
	id := v.Identity()
	// Model files record this string: it must not change between releases.
	const want = "vec-4d-5-" // + 12 hex digits
	if !strings.HasPrefix(id, want) || len(id) != len(want)+12 {
		t.Fatalf("Identity() = %q", id)
	}
	if got := v.Keep(func(string) bool { return true }).Identity(); got != id {
		t.Errorf("copy has identity %s, want %s", got, id)
	}
	flip := v.Keep(func(string) bool { return true })
	flip.Data[7] = math.Float32frombits(math.Float32bits(flip.Data[7]) ^ 1)
	other := New(4)
	for i := v.Len() - 1; i >= 0; i-- {
		other.Add(v.Words[i], v.Vector(i))
	}
	for name, x := range map[string]*Vectors{"one bit": flip, "order": other, "normalized": v.Normalized()} {
		if x.Identity() == id {
			t.Errorf("%s: same identity %s", name, id)
		}
	}
	t.Logf("fixture identity %s", id)
}

const stableHex = "0592a5d4e712" // sha256("as2-embed" | dim | count | words | values), checked with Python

func TestIdentityIsStable(t *testing.T) {
	v := New(2)
	v.Add("hello", []float32{1, -2})
	v.Add("world", []float32{0.5, 0})
	if got, want := v.Identity(), "vec-2d-2-"+stableHex; got != want {
		t.Fatalf("Identity() = %s, want %s: the fingerprint changed, so model files written before will no longer match", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, v := range []*Vectors{fixture(t), randomTable(t, 3000, 37, 1), New(3)} {
		b := compact(t, v)
		got, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		sameTable(t, got, v)
		if got.Identity() != v.Identity() {
			t.Fatal("identity changed in a round trip")
		}
	}
}

func TestWriteToRefusesInconsistentTables(t *testing.T) {
	v := &Vectors{Dim: 2, Words: []string{"a"}, Data: []float32{1}}
	if _, err := v.WriteTo(&bytes.Buffer{}); err == nil || err.Error() != "embed: inconsistent table: 1 words of dimension 2 but 1 values" {
		t.Fatalf("WriteTo: %v", err)
	}
}

// Load detects every format, compressed or not, and reads what the
// explicit format name reads.
func TestLoad(t *testing.T) {
	want := fixture(t)
	dir := t.TempDir()
	files := map[string][]byte{
		"glove":    gloveText(want, false),
		"fasttext": gloveText(want, true),
		"word2vec": word2vecBinary(want, true),
		"wink":     winkJSON(want),
		"as2":      compact(t, want),
	}
	for format, b := range files {
		for _, z := range []bool{false, true} {
			name := format
			if z {
				b, name = gz(b), name+".gz"
			}
			path := writeFile(t, dir, name, b)
			if got := detectFormat(b); !z && got != format {
				t.Errorf("%s: detected %q", name, got)
			}
			for _, f := range []string{"auto", "", format} {
				got, err := Load(path, f)
				if err != nil {
					t.Fatalf("Load(%s, %q): %v", name, f, err)
				}
				sameTable(t, got, want)
			}
		}
	}
	if _, err := Load(filepath.Join(dir, "glove"), "xml"); err == nil || !strings.Contains(err.Error(), `unknown format "xml"`) {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "glove"), "word2vec"); err == nil {
		t.Error("GloVe text read as word2vec binary")
	}
	if _, err := Load(filepath.Join(dir, "missing"), "auto"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	empty := writeFile(t, dir, "empty", nil)
	if _, err := Load(empty, "auto"); err == nil || err.Error() != empty+": empty file" {
		t.Errorf("empty file: %v", err)
	}
}

func TestLoadTruncatedGzip(t *testing.T) {
	dir := t.TempDir()
	v := randomTable(t, 200, 10, 2)
	for format, b := range map[string][]byte{"glove": gloveText(v, false), "as2": compact(t, v), "word2vec": word2vecBinary(v, true)} {
		z := gz(b)
		path := writeFile(t, dir, format+".gz", z[:len(z)*2/3])
		_, err := Load(path, format)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "unexpected EOF") && !strings.Contains(err.Error(), "unexpected end") {
			t.Errorf("%s: %v", format, err)
		}
		t.Logf("%s: %v", format, err)
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "v.as2emb")
	v := fixture(t)
	if err := Save(path, v); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, "auto")
	if err != nil {
		t.Fatal(err)
	}
	sameTable(t, got, v)
	// A failed save leaves the old file as it was, and no temporary file.
	bad := &Vectors{Dim: 4, Words: []string{"a"}}
	if err := Save(path, bad); err == nil {
		t.Fatal("Save of an inconsistent table: no error")
	}
	if got, err := Load(path, "as2"); err != nil {
		t.Fatal(err)
	} else {
		sameTable(t, got, v)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left %d files in the folder", len(ents))
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
