package cosinet

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/train"
)

func tinyHyper(rnn string) Hyper {
	return Hyper{Filters: 6, Kernel: 3, Relatedness: true, ExactMatch: true, PairFeatures: true, RNN: rnn}
}

// tiny builds a Cosinet over the tiny vectors, failing t on an error.
func tiny(t testing.TB, h Hyper, seed uint64) *Model {
	t.Helper()
	return encodertest.Model(t, New, h, seed)
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, rnn := range RNNKinds {
		m := tiny(t, tinyHyper(rnn), 3)
		q := encodertest.Question()
		want, err := m.Score(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := model.Write(&buf, m); err != nil {
			t.Fatal(err)
		}
		back, err := model.Read(&buf)
		if err != nil {
			t.Fatalf("rnn %q: %v", rnn, err)
		}
		got, err := back.Score(context.Background(), q)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("rnn %q: scores %v after loading, %v before", rnn, got, want)
		}
		if back.Config().Params != m.Params().Count() {
			t.Fatalf("params %d vs %d", back.Config().Params, m.Params().Count())
		}
	}
}

// TestTrainingAndInferencePathsAgree checks that the inference path (cached
// projections, candidates and the BiRNN's directions spread over
// goroutines) scores exactly what the training forward pass computes.
func TestTrainingAndInferencePathsAgree(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	q := encodertest.LongQuestion(40)
	tp := nn.NewTape(m.Params().NewGrads(), 0) // gradients: the serial path
	tp.SetTrain(false)
	train := m.forward(tp, m.prepare(q), false)
	for round := 0; round < 2; round++ {
		got, err := m.Score(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range train.Value.Data {
			if math.Abs(float64(v)-got[i]) > 1e-5 {
				t.Fatalf("round %d: candidate %d: %v inferred, %v in training", round, i, got[i], v)
			}
		}
	}
}

func TestTrainTiny(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	qs := []dataset.Question{*encodertest.Question()}
	before, err := m.Score(context.Background(), &qs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.Train(context.Background(), m, qs, train.Options{Training: model.Training{Objective: model.Listwise, Epochs: 30, LR: 0.01}}); err != nil {
		t.Fatal(err)
	}
	after, err := m.Score(context.Background(), &qs[0])
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(before, after) || after[1] <= after[0] || after[1] <= after[2] || after[1] <= after[3] {
		t.Fatalf("the answer is not ranked first after training: %v (before %v)", after, before)
	}
}

func TestBadHyper(t *testing.T) {
	for _, h := range []Hyper{
		{Filters: 0, Kernel: 5}, {Filters: 10, Kernel: 0}, {Filters: 10, Kernel: 5, RNN: "transformer"},
		{Filters: 10, Kernel: 5, Dropout: 1}, {Filters: 10, Kernel: 5, RNNHidden: -1},
	} {
		if _, err := New(h, encodertest.Static[float32](t), 1); err == nil {
			t.Errorf("hyperparameters %+v accepted", h)
		}
	}
	if _, err := New(RecipeHyper(), nil, 1); err == nil || !strings.Contains(err.Error(), "static word embeddings") {
		t.Errorf("no encoder: error %v", err)
	}
	if _, err := encoder.NewStatic[float32](embed.New(4)); err == nil {
		t.Error("empty embeddings accepted")
	}
}

// TestBadModelFiles checks that damaged or incompatible files give clear
// errors.
func TestBadModelFiles(t *testing.T) {
	m := tiny(t, tinyHyper("rnn"), 3)
	var good bytes.Buffer
	if err := model.Write(&good, m); err != nil {
		t.Fatal(err)
	}
	tensors, meta, err := safetensors.Read(bytes.NewReader(good.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(edit func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor) []byte {
		var cfg map[string]any
		json.Unmarshal([]byte(meta[model.MetadataKey]), &cfg)
		ts := edit(cfg, append([]safetensors.Tensor(nil), tensors...))
		js, _ := json.Marshal(cfg)
		var b bytes.Buffer
		safetensors.Write(&b, ts, map[string]string{model.MetadataKey: string(js)})
		return b.Bytes()
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"truncated", good.Bytes()[:good.Len()-10], "truncated"},
		{"not a model", []byte("hello, world, this is text"), "safetensors"},
		{"no config", func() []byte { var b bytes.Buffer; safetensors.Write(&b, tensors, nil); return b.Bytes() }(), "not an as2 model"},
		{"newer format", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			cfg["format"] = model.FormatVersion + 1
			return ts
		}), "upgrade as2"},
		{"unknown architecture", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			cfg["architecture"] = "bert"
			return ts
		}), `architecture "bert" is unknown`},
		{"other tokenizer", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			cfg["encoder"].(map[string]any)["tokenizer"] = "spacy"
			return ts
		}), `tokenizer "spacy"`},
		{"missing tensor", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor { return ts[1:] }), "is missing"},
		{"wrong shape", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			h := cfg["hyperparameters"].(map[string]any)
			h["filters"] = 7.0
			return ts
		}), "has shape"},
		{"wrong embeddings", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			cfg["encoder"].(map[string]any)["identity"] = "glove-300d"
			return ts
		}), "the file is corrupt"},
		{"NaN weight", rewrite(func(cfg map[string]any, ts []safetensors.Tensor) []safetensors.Tensor {
			ts[0].Data = append([]float32(nil), ts[0].Data...)
			ts[0].Data[0] = float32(math.NaN())
			return ts
		}), "weights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "m.as2")
			os.WriteFile(p, tc.file, 0o644)
			_, err := model.Load(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %v, want %q and the path", err, tc.want)
			}
		})
	}
}

// TestReadsFormat1 checks that a file written before the encoder had a
// spec of its own (format 1: tokenizer, embeddings and vocabulary at the
// top level of the configuration) loads and scores as it did.
func TestReadsFormat1(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	tensors, meta, err := safetensors.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(meta[model.MetadataKey]), &cfg); err != nil {
		t.Fatal(err)
	}
	enc := cfg["encoder"].(map[string]any)
	delete(cfg, "encoder")
	cfg["format"], cfg["tokenizer"], cfg["embeddings"], cfg["vocabulary"] = 1, enc["tokenizer"], enc["identity"], enc["vocabulary"]
	js, _ := json.Marshal(cfg)
	var v1 bytes.Buffer
	if err := safetensors.Write(&v1, tensors, map[string]string{model.MetadataKey: string(js)}); err != nil {
		t.Fatal(err)
	}
	back, err := model.Read(&v1)
	if err != nil {
		t.Fatal(err)
	}
	q := encodertest.Question()
	want, _ := m.Score(context.Background(), q)
	got, err := back.Score(context.Background(), q)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("format 1: scores %v (%v), want %v", got, err, want)
	}
	if back.Config().Encoder.Kind != encoder.StaticKind {
		t.Fatalf("format 1 read as encoder %+v", back.Config().Encoder)
	}
}
