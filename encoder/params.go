package encoder

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"

	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// Parameters and model-file tensors: one home for the conversions that
// encoders and models both make.

// TensorPrefix starts the names of an encoder's weights in model files,
// whether a model fine-tunes them (adopting them with nn.Params.Adopt under
// this prefix) or keeps them frozen (Encoder.Tensors names them so too):
// either way the decoder finds them under the same names.
const TensorPrefix = "encoder."

// FineTune makes enc's weights a model's: ps adopts them under
// TensorPrefix (nn.Params.Adopt), so that training updates them, the model
// file saves them, and Freeze no longer caches enc's states (it has no
// weights of its own left). An encoder without weights is an error: there
// is nothing to fine-tune.
func FineTune[T nn.Float](ps *nn.Params[T], enc Encoder[T]) error {
	if enc.Params().Count() == 0 {
		return fmt.Errorf("fine-tuning: the %s encoder has no weights to train", enc.Spec().Kind)
	}
	return ps.Adopt(TensorPrefix, enc.Params())
}

// WeightsIdentity is "sha256:" and a hash of the parameters' names, shapes
// and float32 values, in order: the identity of pre-trained weights in a
// Spec.
func WeightsIdentity(ps *nn.Params[float32]) string {
	h := sha256.New()
	var b [4]byte
	for _, p := range ps.All() {
		h.Write([]byte(p.Name))
		for _, n := range p.Shape() {
			binary.LittleEndian.PutUint32(b[:], uint32(n))
			h.Write(b[:])
		}
		buf := make([]byte, 4*len(p.Value.Data))
		for i, v := range p.Value.Data {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		h.Write(buf)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// ParamTensors returns the parameters as model-file tensors named
// prefix+name, sharing their memory.
func ParamTensors(prefix string, ps *nn.Params[float32]) []safetensors.Tensor {
	var out []safetensors.Tensor
	for _, p := range ps.All() {
		out = append(out, safetensors.Tensor{Name: prefix + p.Name, Shape: p.Shape(), Data: p.Value.Data})
	}
	return out
}

// LoadParams sets every parameter of ps from the tensor named prefix+name,
// which must have the parameter's shape, and checks that the values are
// finite: an error names the tensor that is missing, misshapen or not
// finite.
func LoadParams(ps *nn.Params[float32], prefix string, tensors []safetensors.Tensor) error {
	byName := make(map[string]safetensors.Tensor, len(tensors))
	for _, t := range tensors {
		byName[t.Name] = t
	}
	for _, p := range ps.All() {
		name := prefix + p.Name
		t, ok := byName[name]
		if !ok {
			return fmt.Errorf("tensor %q is missing", name)
		}
		if !slices.Equal(t.Shape, p.Shape()) {
			return fmt.Errorf("tensor %q has shape %v, want %v", name, t.Shape, p.Shape())
		}
		if err := p.SetFloat32s(t.Data); err != nil {
			return fmt.Errorf("tensor %q: %w", name, err)
		}
	}
	if err := ps.CheckFinite(); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	return nil
}
