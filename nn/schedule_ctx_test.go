package nn

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
)

// TestRowsContext checks that RowsContext computes Rows' rows under a live
// context and stops between candidates once the context is done.
func TestRowsContext(t *testing.T) {
	var p TapePool[float32]
	row := func(tp *Tape[float32], i int) *Var[float32] {
		x := NewTensor[float32](3)
		x.Data[0], x.Data[1], x.Data[2] = float32(i), float32(2*i), 1
		return tp.Const(x)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got, err := p.RowsContext(ctx, 1000, row)
	if err != nil || !reflect.DeepEqual(got, p.Rows(1000, row)) {
		t.Fatalf("live context: %v", err)
	}
	var done atomic.Int64
	_, err = p.RowsContext(ctx, 100_000, func(tp *Tape[float32], i int) *Var[float32] {
		if done.Add(1) == 50 {
			cancel()
		}
		return row(tp, i)
	})
	if !errors.Is(err, context.Canceled) || done.Load() > 50+int64(ctxChunk)*8 {
		t.Fatalf("cancelled: %v after %d rows", err, done.Load())
	}
	// Through StackRows and ScoresContext, as a forward pass uses them.
	_, err = p.ScoresContext(ctx, func(tp *Tape[float32]) *Var[float32] {
		return p.StackRows(tp, 10, true, row)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ScoresContext: %v", err)
	}
}
