package quant_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/kernel"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/model/dual"
	"github.com/as2/as2/model/quant"
)

// tolerance bounds |int8 − float32| for a score, relative to the largest
// float32 score's magnitude among a question's candidates (at least 1).
// Rounding each activation row to 8 bits costs at most half a step,
// 1/254 of the row's largest value, per product; through a few layers
// the scores moved by at most about 1% on these checkpoints, and 4%
// leaves room without hiding a wrong layout (a transposed or misscaled
// matrix moves them by tens of percent).
const tolerance = 0.04

// wideUSELite is a random USE-Lite wide enough that model.WriteInt8 stores
// every matrix as int8 (model.Int8MinSize values), over
// encodertest.Question's words.
func wideUSELite(t *testing.T, seed uint64) *uselite.Encoder {
	t.Helper()
	cfg := uselite.Config{Vocab: 40, EmbedDim: 64, Hidden: 64, FFN: 128, Heads: [2]int{4, 4}, MaxLen: 32, LNEps: 1e-6,
		QScale: [2]float64{0.25, 0.25}}
	for i := range cfg.EmbedDim / 2 {
		cfg.InvTimescales = append(cfg.InvTimescales, float32(math.Pow(1e-4, float64(i)/float64(cfg.EmbedDim/2))))
	}
	return encodertest.USELiteOf(t, cfg, seed)
}

// checkpoint is a model to load as float32 and as int8, and how its file
// is written.
type checkpoint struct {
	name   string
	model  func(t *testing.T) model.Model
	int8   bool // written by model.WriteInt8: its int8 weights are used as stored
	stored int  // int8 matrices the file stores
}

func checkpoints() []checkpoint {
	cross := func(enc func(t *testing.T) encoder.Encoder[float32]) func(t *testing.T) model.Model {
		return func(t *testing.T) model.Model {
			m, err := crossencoder.New(crossencoder.Recipe(), enc(t), 3)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	wide := func(t *testing.T) encoder.Encoder[float32] { return wideUSELite(t, 7) }
	tiny := func(t *testing.T) encoder.Encoder[float32] { return encodertest.USELite(t, 7) }
	bertHF := func(t *testing.T) model.Model {
		m, err := crossencoder.LoadHF(encodertest.BERTDir(t))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	dualEnc := func(t *testing.T) model.Model {
		m, err := dual.New(dual.Hyper{Layer: dual.LayerNone, Pool: dual.PoolEncoder, FineTune: true}, wideUSELite(t, 9), 3)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// The wide USE-Lite's six matrices are stored int8: input_proj, qkv,
	// attn_out, ffn1 and ffn2 of layer 0, four of layer 1, and pool.
	return []checkpoint{
		{"crossencoder/use-lite int8 file", cross(wide), true, 10},
		{"crossencoder/use-lite float file", cross(wide), false, 0},
		{"crossencoder/use-lite tiny int8 file", cross(tiny), true, 0}, // too small to store int8: rounded at load
		{"crossencoder/bert float file", bertHF, false, 0},             // width 32: too small to store int8 either way
		{"dual/use-lite int8 file", dualEnc, true, 10},
	}
}

// TestInt8 loads each checkpoint as float32 and as int8 and compares their
// scores on the kernel path this process runs (AS2_KERNEL; TestEveryPath
// runs it under each).
func TestInt8(t *testing.T) {
	q := encodertest.LongQuestion(12)
	for _, c := range checkpoints() {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			write := model.Write
			if c.int8 {
				write = model.WriteInt8
			}
			if err := write(&buf, c.model(t)); err != nil {
				t.Fatal(err)
			}
			stored, err := quant.ReadStored(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != c.stored {
				t.Errorf("%d int8 matrices stored, want %d", len(stored), c.stored)
			}
			f, on, err := quant.Read(buf.Bytes(), false)
			if err != nil || on {
				t.Fatalf("float32 load: int8 %v, %v", on, err)
			}
			i8, on, err := quant.Read(buf.Bytes(), true)
			if err != nil {
				t.Fatal(err)
			}
			if on != quant.Supported() || quant.Supported() != (kernel.Active() != kernel.Generic) {
				t.Fatalf("int8 load on the %s path: int8 %v, Supported %v", kernel.Active(), on, quant.Supported())
			}
			ls := i8.(quant.Linearer).Linears()
			if len(ls) == 0 {
				t.Fatal("no linear layers")
			}
			for _, l := range ls {
				if (l.Int8 != nil) != on {
					t.Errorf("%s: int8 weights %v, int8 load %v", l.W.Name, l.Int8 != nil, on)
				}
				// An int8 load keeps no float32 copy of int8 weights.
				if kept := l.W.Value.Data != nil; kept == on {
					t.Errorf("%s: float32 weights kept %v, int8 load %v", l.W.Name, kept, on)
				}
				if _, ok := stored[l.W.Name]; c.int8 && c.stored > 0 && !ok {
					t.Errorf("%s: not stored as int8", l.W.Name)
				}
			}
			want := score(t, f, q)
			got := score(t, i8, q)
			scale := 1.0
			for _, v := range want {
				scale = max(scale, math.Abs(v))
			}
			var worst float64
			for i := range want {
				worst = max(worst, math.Abs(got[i]-want[i])/scale)
			}
			t.Logf("%s path: int8 %v, %d linear layers, worst |int8 − float32| %.2g of %.3g", kernel.Active(), on, len(ls), worst*scale, scale)
			switch {
			case !on && worst != 0:
				t.Errorf("float32 fallback differs from float32 by %.3g", worst*scale)
			case on && worst == 0:
				t.Error("int8 scores equal the float32 ones exactly: int8 did not run")
			case worst > tolerance:
				t.Errorf("int8 scores differ by %.3g of %.3g, more than %v", worst*scale, scale, tolerance)
			}
		})
	}
}

func score(t *testing.T, m model.Model, q *dataset.Question) []float64 {
	t.Helper()
	s, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestApplyNotLinearer leaves a model without transformer layers float32.
func TestApplyNotLinearer(t *testing.T) {
	on, err := quant.Apply(nil, nil)
	if err != nil || on {
		t.Fatalf("Apply(nil): %v, %v", on, err)
	}
}

// TestReadStoredCorrupt refuses an int8 list naming a missing tensor.
func TestReadStoredCorrupt(t *testing.T) {
	if _, err := quant.ReadStored(strings.NewReader("not a file")); err == nil {
		t.Error("ReadStored read garbage")
	}
}

// TestEveryPath runs TestInt8 under each AS2_KERNEL value the CPU has, in
// child processes, since the path is chosen once at start-up.
func TestEveryPath(t *testing.T) {
	if os.Getenv(kernel.EnvVar) != "" {
		t.Skip("a child run: its path is set")
	}
	for _, p := range []kernel.Path{kernel.Generic, kernel.AVX2, kernel.AVX512} {
		t.Run(p.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestInt8$", "-test.v")
			cmd.Env = append(os.Environ(), kernel.EnvVar+"="+p.String())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s=%s: %v\n%s", kernel.EnvVar, p, err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "worst") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}
