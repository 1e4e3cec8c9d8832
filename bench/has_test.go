package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/has"
	"github.com/as2/as2/rank"
)

// TestPoolMemoryBytes: the memory model of Table 6. Pooling stores one
// float vector an answer, attention one a word, and the bits are what
// was measured; recomputing stores nothing.
func TestPoolMemoryBytes(t *testing.T) {
	mem := &PoolMemory{Answers: 2, Words: 10, HashBytes: 80}
	for _, tc := range []struct {
		store string
		d     int
		per   float64
		total int64
	}{
		{StorePooled, 8, 32, 64},  // 2 answers × 8 floats × 4 bytes
		{StoreFloat, 8, 160, 320}, // 10 words × 8 floats × 4 bytes
		{StoreBits, 8, 40, 80},    // measured, whatever d
		{StoreBits, 1024, 40, 80}, //
		{StorePooled, 256, 1024, 2048},
		{StoreNone, 8, 0, 0},
	} {
		if per, total := mem.Bytes(tc.store, tc.d); per != tc.per || total != tc.total {
			t.Errorf("%q at d %d: %v bytes an answer, %d in all; want %v, %d", tc.store, tc.d, per, total, tc.per, tc.total)
		}
	}
	if per, total := (&PoolMemory{}).Bytes(StoreFloat, 8); per != 0 || total != 0 {
		t.Errorf("an empty pool: %v, %d", per, total)
	}
}

func hasModel(t *testing.T, mode string) *has.Model {
	h := has.PaperHyper()
	h.Mode, h.Hidden, h.AttnHidden = mode, 4, 4
	return encodertest.Model(t, has.New, h, 1)
}

// TestHAS runs every method on untrained models: each ranks every
// question, a model's stored and recomputed rankings agree (so do their
// metrics), and the pool's memory is added by what each stores.
func TestHAS(t *testing.T) {
	models := map[string]*has.Model{has.Hash: hasModel(t, has.Hash), has.Attention: hasModel(t, has.Attention), has.Pooling: hasModel(t, has.Pooling)}
	qs := []dataset.Question{*encodertest.Question(), *encodertest.LongQuestion(9)}
	qs[1].ID = "long"
	ctx := context.Background()
	pool, err := MeasurePool(ctx, models[has.Hash], []string{"Hamlet is a tragedy.", "Shakespeare wrote it.", "Denmark"}, []string{"test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pool.Answers != 3 || pool.Words < 3 || pool.HashBytes <= 0 {
		t.Fatalf("pool %+v", pool)
	}
	var shown []string
	progress := func(what string, total int) (func(int), func()) {
		last := 0
		return func(done int) {
				if done != last+1 || done > total {
					t.Errorf("%s: step %d after %d of %d", what, done, last, total)
				}
				last = done
			}, func() {
				shown = append(shown, what)
			}
	}
	rep, err := HAS(ctx, models, qs, "tiny", pool, progress)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pooling (store)", "attention (recompute)", "attention (store)", "HAS (recompute)", "HAS (store, bits)"}
	if len(rep.Rows) != len(want) || strings.Join(shown, ",") != strings.Join(want, ",") {
		t.Fatalf("rows %+v, progress for %v", rep.Rows, shown)
	}
	for i, row := range rep.Rows {
		if row.Method != want[i] || row.MAP <= 0 || row.MAP > 1 || row.MeanMs < 0 {
			t.Errorf("row %d: %+v", i, row)
		}
	}
	if rep.Rows[1].MAP != rep.Rows[2].MAP || rep.Rows[3].MAP != rep.Rows[4].MAP {
		t.Errorf("stored and recomputed rankings differ: %+v", rep.Rows)
	}
	if rep.Rows[1].PoolBytes != 0 || rep.Rows[4].PoolBytes != pool.HashBytes || rep.Rows[0].PoolBytes != 3*has.PoolingBytes(8) {
		t.Errorf("pool bytes: %+v", rep.Rows)
	}
	if rep.Questions != 2 || rep.Candidates != 13 {
		t.Errorf("%d questions, %d candidates", rep.Questions, rep.Candidates)
	}
	if _, err := HAS(ctx, map[string]*has.Model{has.Pooling: models[has.Pooling]}, qs, "tiny", nil, nil); err == nil {
		t.Error("ran without the hash model")
	}
}

func TestHASModel(t *testing.T) {
	att := hasModel(t, has.Attention)
	for _, tc := range []struct {
		name string
		r    rank.Ranker
		mode string
		want string
	}{
		{"right mode", att, has.Attention, ""},
		{"wrong mode", att, has.Hash, "a HAS model of mode attention, want hash"},
		{"not HAS", rank.Func(func(context.Context, *dataset.Question) ([]float64, error) { return nil, nil }), has.Hash, "want a HAS model"},
	} {
		m, err := HASModel(tc.r, tc.mode)
		if tc.want == "" && (err != nil || m != att) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
