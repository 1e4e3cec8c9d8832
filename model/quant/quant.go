// Package quant runs a loaded model's linear layers with int8 weights
// (kernel.GemmInt8) for inference: whether a model runs int8 or float32
// is a load option (Load, Read, Apply), float32 by default.
//
// A model file written int8 (model.WriteInt8, as2 quantize; the built-in
// model's files) gives its stored int8 weights and scales to the kernel
// as they are: model.Read's float32 weights are those values times their
// scales, so the int8 model's weights equal the float model's and only the
// activations are rounded (per row, at run time). A float32 file's weights
// are rounded to int8 at load, with one scale per output.
//
// The kernels' generic path runs int8 about three times slower than
// float32 (it has no integer dot-product instructions), so there int8 is
// not switched on: Supported reports it, and Load, Read and Apply leave
// the model float32.
package quant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/as2/as2/kernel"
	"github.com/as2/as2/model"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/safetensors"
)

// Linearer is a model whose linear layers int8 inference can run as int8
// (the transformer models: crossencoder.Model, dual.Model).
type Linearer interface {
	// Linears returns the layers to run as int8; their weights' names
	// (nn.Param.Name) are the model file's tensor names.
	Linears() []*nn.Linear[float32]
}

// Supported reports whether int8 inference runs on this CPU's kernel path
// (kernel.Active): AVX2 or AVX-512, not generic, where it would be slower
// than float32.
func Supported() bool { return kernel.Active() != kernel.Generic }

// Stored holds a model file's int8 matrices, by tensor name, packed for
// kernel.GemmInt8.
type Stored map[string]*kernel.Int8Matrix

// ReadStored reads the int8 matrices of a model file written by
// model.WriteInt8 (no entries for a float32 file). Each is stored as nn's
// Linear holds W, [in, out], with a scale per row (per input), the layout
// kernel.NewInt8MatrixT takes as it is. It checks only what it packs:
// model.Read checks the file's integrity.
func ReadStored(r io.Reader) (Stored, error) {
	tensors, meta, err := safetensors.Read(r)
	if err != nil {
		return nil, err
	}
	list, ok := meta[model.Int8Key]
	if !ok {
		return Stored{}, nil
	}
	var names []string
	if err := json.Unmarshal([]byte(list), &names); err != nil {
		return nil, fmt.Errorf("the list of int8 tensors is unreadable: %w", err)
	}
	byName := make(map[string]safetensors.Tensor, len(tensors))
	for _, t := range tensors {
		byName[t.Name] = t
	}
	s := make(Stored, len(names))
	for _, name := range names {
		t, ok := byName[name]
		sc, sok := byName[model.Int8ScalePrefix+name]
		if !ok || !sok || t.DType != "I8" {
			return nil, fmt.Errorf("int8 tensor %q or its scales are missing", name)
		}
		if len(t.Shape) != 2 {
			continue // not a linear layer's matrix: only Apply's layers are packed
		}
		q := make([]int8, len(t.Data))
		for i, v := range t.Data {
			q[i] = int8(v)
		}
		m, err := kernel.NewInt8MatrixT(q, sc.Data, t.Shape[0], t.Shape[1])
		if err != nil {
			return nil, fmt.Errorf("int8 tensor %q: %w", name, err)
		}
		s[name] = m
	}
	return s, nil
}

// Apply gives m's linear layers (Linearer) int8 weights for inference:
// stored's matrix of the same name where it has one, otherwise the layer's
// float32 weights rounded to int8 (nn.Linear.QuantizeInt8). It reports
// whether m now runs int8: false, with m unchanged, when !Supported() or m
// is no Linearer. Call it before m ranks; training still uses the float32
// weights, and changing them leaves the int8 ones stale.
func Apply(m rank.Ranker, stored Stored) (bool, error) {
	lm, ok := m.(Linearer)
	if !ok || !Supported() {
		return false, nil
	}
	ls := lm.Linears()
	if len(ls) == 0 {
		return false, nil
	}
	// Pack every layer before setting any, so that an error leaves m
	// float32 throughout rather than half int8.
	ms := make([]*kernel.Int8Matrix, len(ls))
	for i, l := range ls {
		if w, ok := stored[l.W.Name]; ok {
			ms[i] = w
			continue
		}
		c := &nn.Linear[float32]{W: l.W}
		if err := c.QuantizeInt8(); err != nil {
			return false, fmt.Errorf("int8 %s: %w", l.W.Name, err)
		}
		ms[i] = c.Int8
	}
	for i, l := range ls {
		if err := l.SetInt8(ms[i]); err != nil {
			for _, l := range ls[:i] {
				l.Int8 = nil
			}
			return false, fmt.Errorf("int8 %s: %w", l.W.Name, err)
		}
	}
	return true, nil
}

// Read reads a model file's bytes (model.Read), running int8 when int8 is
// set and Supported (see Apply). It reports whether the model runs int8.
//
// A model it loads int8 is for inference only: its int8 layers keep no
// float32 copy of their weights (Release), which would be four bytes a
// weight beside the int8 one's byte (the built-in model's two files held
// about 40 MB of them), so it cannot be trained or saved.
func Read(b []byte, int8 bool) (model.Model, bool, error) {
	m, err := model.Read(bytes.NewReader(b))
	if err != nil || !int8 || !Supported() {
		return m, false, err
	}
	if _, ok := m.(Linearer); !ok {
		return m, false, nil
	}
	stored, err := ReadStored(bytes.NewReader(b))
	if err != nil {
		return nil, false, err
	}
	on, err := Apply(m, stored)
	if err != nil {
		return nil, false, err
	}
	if on {
		Release(m.(Linearer).Linears())
	}
	return m, on, nil
}

// Release drops the float32 weights of the layers that run int8
// (Linear.Int8 set), keeping their shapes, so that an inference-only model
// holds each weight once, as int8: Linear.Forward without gradients reads
// only Int8. A released layer cannot be trained, saved or quantised again.
func Release(ls []*nn.Linear[float32]) {
	for _, l := range ls {
		if l.Int8 != nil {
			l.W.Value.Data = nil
		}
	}
}

// Load reads the model file at path as Read does: model.Load with int8
// inference as a load option.
func Load(path string, int8 bool) (model.Model, error) {
	if !int8 {
		return model.Load(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, _, err := Read(b, int8)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
