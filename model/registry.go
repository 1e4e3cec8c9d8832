package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/safetensors"
)

// Arch describes an architecture whose hyperparameters are H to the
// registry: everything a command needs to build, train and read it.
type Arch[H any] struct {
	Name    string // in flags, recipes and model files
	Summary string // one line
	Help    string // a paragraph for as2 train --help
	// Hyper is as2's default, chosen on a dev set; PaperHyper the paper's
	// settings (the "-paper" recipe, --paper).
	Hyper, PaperHyper func() H
	// Validate, if set, checks h before New, its errors naming the field.
	Validate func(h H) error
	// Training is the training the architecture recommends for an
	// objective (nil for an in-batch one), as2's recipe or (paper) the
	// paper's.
	Training func(paper bool, obj Objective) Training
	// New builds an untrained model over enc, initialised from seed.
	New func(h H, enc encoder.Encoder[float32], seed uint64) (Neural, error)
	// Describe names what sets a model apart, e.g. its RNN.
	Describe func(h H) string
	// Encoder is the encoder the recipe names: "" (or "static") for
	// static word vectors, or e.g. "use-lite".
	Encoder string
}

// DescribeRNN is Arch.Describe's text for an architecture that may end in
// an RNN over the candidates (kind "" for none).
func DescribeRNN(kind string) string {
	if kind == "" {
		return "no rnn"
	}
	return kind
}

// Architecture is a registered architecture.
type Architecture interface {
	Name() string
	Summary() string
	Help() string
	// Recipe is the architecture's registered recipe, as2's or (paper)
	// the paper's, with the training it recommends under obj (nil for an
	// in-batch objective; the recipe's objective is then left for the
	// caller to name). Its Hyper is a fresh *H.
	Recipe(paper bool, obj Objective) Recipe
	// New builds the untrained model that r describes over enc,
	// initialised from r's seed.
	New(r Recipe, enc encoder.Encoder[float32]) (Trainable, error)
	// Describe names what sets m, a model of this architecture, apart.
	Describe(m Model) string
	validate(hyper any) error
	decode(cfg Config, tensors []safetensors.Tensor) (Model, error)
}

var (
	mu    sync.RWMutex
	archs = map[string]Architecture{}
)

// Register adds an architecture to the registry. It panics on a duplicate
// or incomplete registration, a programming error.
func Register[H any](a Arch[H]) {
	if a.Name == "" || a.Hyper == nil || a.PaperHyper == nil || a.Training == nil || a.New == nil {
		panic("model: incomplete registration of architecture " + a.Name)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := archs[a.Name]; dup {
		panic("model: architecture " + a.Name + " registered twice")
	}
	archs[a.Name] = arch[H]{a}
}

// Lookup returns the architecture called name.
func Lookup(name string) (Architecture, error) {
	mu.RLock()
	a, ok := archs[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("architecture %q is unknown to this as2 (it knows %s)", name, strings.Join(Names(), ", "))
	}
	return a, nil
}

// Names lists the registered architectures.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(archs))
}

// Architectures returns the registered architectures, by name.
func Architectures() []Architecture {
	var out []Architecture
	for _, n := range Names() {
		a, _ := Lookup(n)
		out = append(out, a)
	}
	return out
}

type arch[H any] struct{ Arch[H] }

func (a arch[H]) Name() string    { return a.Arch.Name }
func (a arch[H]) Summary() string { return a.Arch.Summary }
func (a arch[H]) Help() string    { return a.Arch.Help }

func (a arch[H]) Recipe(paper bool, obj Objective) Recipe {
	h := a.Arch.Hyper()
	if paper {
		h = a.Arch.PaperHyper()
	}
	t := a.Arch.Training(paper, obj)
	enc := a.Arch.Encoder
	if enc == "" {
		enc = encoder.StaticKind
	}
	name := ""
	if obj != nil {
		name = obj.Name()
	}
	return Recipe{Architecture: a.Arch.Name, Encoder: enc, Hyper: &h, Training: TrainingSpec{
		Objective: name, ScoreScale: 1, Epochs: t.Epochs, LR: t.LR, Batch: t.Batch, Clip: t.ClipNorm,
		Negatives: t.Negatives, KeepBest: t.KeepBest, Seed: 1,
	}}
}

// hyper returns the H that v (an H or a *H) holds.
func (a arch[H]) hyper(v any) (H, error) {
	switch h := v.(type) {
	case *H:
		if h != nil {
			return *h, nil
		}
	case H:
		return h, nil
	}
	var want H
	return want, fmt.Errorf("%T, not the %s hyperparameters %T", v, a.Arch.Name, &want)
}

// checked returns the H that v holds, checked by the architecture's
// Validate.
func (a arch[H]) checked(v any) (H, error) {
	h, err := a.hyper(v)
	if err == nil && a.Arch.Validate != nil {
		err = a.Arch.Validate(h)
	}
	return h, err
}

func (a arch[H]) validate(hyper any) error {
	_, err := a.checked(hyper)
	return err
}

func (a arch[H]) New(r Recipe, enc encoder.Encoder[float32]) (Trainable, error) {
	if r.Architecture != a.Arch.Name {
		return nil, fmt.Errorf("a recipe for %q, not %s", r.Architecture, a.Arch.Name)
	}
	h, err := a.checked(r.Hyper)
	if err != nil {
		return nil, fmt.Errorf("hyperparameters: %w", err)
	}
	return a.Arch.New(h, enc, r.Training.Seed)
}

func (a arch[H]) Describe(m Model) string {
	var h H
	if a.Arch.Describe == nil || json.Unmarshal(m.Config().Hyper, &h) != nil {
		return ""
	}
	return a.Arch.Describe(h)
}

// decode rebuilds a model from its file: the hyperparameters, the encoder,
// the untrained model, then its weights.
func (a arch[H]) decode(cfg Config, tensors []safetensors.Tensor) (Model, error) {
	var h H
	if err := json.Unmarshal(cfg.Hyper, &h); err != nil {
		return nil, fmt.Errorf("hyperparameters: %w", err)
	}
	enc, err := encoder.Decode(cfg.Encoder, tensors)
	if err != nil {
		return nil, err
	}
	m, err := a.Arch.New(h, enc, 0)
	if err != nil {
		return nil, err
	}
	if err := loadParams(m, cfg, tensors); err != nil {
		return nil, err
	}
	return m, nil
}
