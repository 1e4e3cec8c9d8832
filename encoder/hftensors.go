package encoder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/as2/as2/safetensors"
)

// HFTensors looks a Hugging Face checkpoint's tensors up by HF name, under
// an optional Prefix (the base model's "roberta.", "deberta.", ... in a
// sequence classifier), checking each against the shape its config.json
// implies. A family's reader gets every tensor it needs and reports the
// first of Errs, so that a wrong checkpoint is refused, naming the tensor,
// before the model is allocated.
type HFTensors struct {
	ByName map[string]safetensors.Tensor
	Prefix string
	Family string // in errors, e.g. "roberta"
	Errs   []error
}

// NewHFTensors indexes a checkpoint's tensors by name.
func NewHFTensors(family string, list []safetensors.Tensor) *HFTensors {
	s := &HFTensors{ByName: make(map[string]safetensors.Tensor, len(list)), Family: family}
	for _, t := range list {
		s.ByName[t.Name] = t
	}
	return s
}

// Has reports whether the checkpoint has Prefix+name.
func (s *HFTensors) Has(name string) bool { _, ok := s.ByName[s.Prefix+name]; return ok }

// Get returns Prefix+name's values, or nil with an error in Errs when it
// is missing or not of shape.
func (s *HFTensors) Get(name string, shape ...int) []float32 {
	t, ok := s.ByName[s.Prefix+name]
	if !ok {
		s.Errs = append(s.Errs, fmt.Errorf("%s: model.safetensors: missing tensor %q", s.Family, s.Prefix+name))
		return nil
	}
	if !slices.Equal(t.Shape, shape) {
		s.Errs = append(s.Errs, fmt.Errorf("%s: model.safetensors: tensor %q has shape %v, want %v (from config.json)", s.Family, s.Prefix+name, t.Shape, shape))
		return nil
	}
	return t.Data
}

// Transpose turns a PyTorch Linear weight [out, in] into nn's [in, out].
func Transpose(w []float32, out, in int) []float32 {
	t := make([]float32, len(w))
	for o := 0; o < out; o++ {
		for i := 0; i < in; i++ {
			t[i*out+o] = w[o*in+i]
		}
	}
	return t
}

// ReadHFSafetensors reads a checkpoint folder's model.safetensors, the
// one weights format the families read; family prefixes the errors.
func ReadHFSafetensors(dir, family string) ([]safetensors.Tensor, error) {
	path := filepath.Join(dir, "model.safetensors")
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %s has no model.safetensors (only the safetensors format is read)", family, dir)
		}
		return nil, fmt.Errorf("%s: %w", family, err)
	}
	defer f.Close()
	list, _, err := safetensors.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", family, path, err)
	}
	return list, nil
}

// Linear puts PyTorch's linear layer hf (weight [out, in] and, with bias,
// bias [out]) into nt as nn's as.weight, transposed to [in, out], and
// as.bias.
func (s *HFTensors) Linear(nt map[string][]float32, hf, as string, out, in int, bias bool) {
	if w := s.Get(hf+".weight", out, in); w != nil {
		nt[as+".weight"] = Transpose(w, out, in)
	}
	if bias {
		nt[as+".bias"] = s.Get(hf+".bias", out)
	}
}

// Norm puts PyTorch's LayerNorm hf (weight and bias [n]) into nt as nn's
// as.gain and as.bias.
func (s *HFTensors) Norm(nt map[string][]float32, hf, as string, n int) {
	nt[as+".gain"] = s.Get(hf+".weight", n)
	nt[as+".bias"] = s.Get(hf+".bias", n)
}

// QKV puts the query, key and value projections prefix+names[i] (each
// [h, h], with a bias) into nt as nn's one [h, 3h] projection as.weight
// and its bias as.bias, the queries' columns first.
func (s *HFTensors) QKV(nt map[string][]float32, prefix string, names [3]string, as string, h int) {
	w, b := make([]float32, 0, 3*h*h), make([]float32, 0, 3*h)
	for _, n := range names {
		w = append(w, s.Get(prefix+n+".weight", h, h)...)
		b = append(b, s.Get(prefix+n+".bias", h)...)
	}
	if len(s.Errs) == 0 {
		nt[as+".weight"], nt[as+".bias"] = Transpose(w, 3*h, h), b
	}
}
