package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/safetensors"
)

// FlagSet is where an architecture declares the flags that set its
// hyperparameters. *pflag.FlagSet satisfies it.
type FlagSet interface {
	BoolVar(p *bool, name string, value bool, usage string)
	IntVar(p *int, name string, value int, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	StringVar(p *string, name string, value string, usage string)
	IntSliceVar(p *[]int, name string, value []int, usage string)
}

// Arch describes an architecture whose hyperparameters are H to the
// registry: everything a command needs to build, train and read it.
type Arch[H any] struct {
	Name    string // in flags and model files
	Summary string // one line
	Help    string // a paragraph for as2 train --help
	// Recipe is as2's default, chosen on a dev set; Paper the paper's
	// settings (--paper).
	Recipe, Paper func() H
	// Flags declares the flags that set h's fields, with h's values as
	// the defaults.
	Flags func(fs FlagSet, h *H)
	// Training is the training the architecture recommends for an
	// objective, as2's recipe or (paper) the paper's.
	Training func(paper bool, obj Objective) Training
	// New builds an untrained model over enc, initialised from seed.
	New func(h H, enc encoder.Encoder[float32], seed uint64) (Neural, error)
	// Describe names what sets a model apart, e.g. its RNN.
	Describe func(h H) string
	// Encoder is the encoder as2 train builds when --encoder is left out:
	// "" for static word vectors, or e.g. "use-lite".
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
	// DeclareFlags declares the architecture's flags on fs, with as2's
	// recipe as their defaults.
	DeclareFlags(fs FlagSet)
	// New builds an untrained model from the recipe's hyperparameters, or
	// the paper's, with the flags in values (flag name to its value as
	// text; lists comma-separated) set on them.
	New(paper bool, values map[string]string, enc encoder.Encoder[float32], seed uint64) (Trainable, error)
	// Training is the training the architecture recommends.
	Training(paper bool, obj Objective) Training
	// Describe names what sets m, a model of this architecture, apart.
	Describe(m Model) string
	// DefaultEncoder is Arch.Encoder: "" for static word vectors.
	DefaultEncoder() string
	decode(cfg Config, tensors []safetensors.Tensor) (Model, error)
}

var (
	mu    sync.RWMutex
	archs = map[string]Architecture{}
)

// Register adds an architecture to the registry. It panics on a duplicate
// or incomplete registration, a programming error.
func Register[H any](a Arch[H]) {
	if a.Name == "" || a.Recipe == nil || a.Paper == nil || a.Flags == nil || a.Training == nil || a.New == nil {
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

func (a arch[H]) DefaultEncoder() string { return a.Arch.Encoder }

func (a arch[H]) DeclareFlags(fs FlagSet) {
	h := a.Recipe()
	a.Flags(fs, &h)
}

func (a arch[H]) New(paper bool, values map[string]string, enc encoder.Encoder[float32], seed uint64) (Trainable, error) {
	h := a.Recipe()
	if paper {
		h = a.Paper()
	}
	fs := flagSetters{}
	a.Flags(fs, &h)
	for name, v := range values {
		set, ok := fs[name]
		if !ok {
			return nil, fmt.Errorf("--%s does not apply to %s", name, a.Arch.Name)
		}
		if err := set(v); err != nil {
			return nil, fmt.Errorf("--%s %q: %w", name, v, err)
		}
	}
	return a.Arch.New(h, enc, seed)
}

func (a arch[H]) Training(paper bool, obj Objective) Training { return a.Arch.Training(paper, obj) }

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

// flagSetters is a FlagSet that keeps, for each flag, how to set its
// variable from text.
type flagSetters map[string]func(string) error

func (f flagSetters) BoolVar(p *bool, name string, _ bool, _ string) {
	f[name] = func(s string) (err error) { *p, err = strconv.ParseBool(s); return err }
}

func (f flagSetters) IntVar(p *int, name string, _ int, _ string) {
	f[name] = func(s string) (err error) { *p, err = strconv.Atoi(s); return err }
}

func (f flagSetters) Float64Var(p *float64, name string, _ float64, _ string) {
	f[name] = func(s string) (err error) { *p, err = strconv.ParseFloat(s, 64); return err }
}

func (f flagSetters) StringVar(p *string, name string, _ string, _ string) {
	f[name] = func(s string) error { *p = s; return nil }
}

func (f flagSetters) IntSliceVar(p *[]int, name string, _ []int, _ string) {
	f[name] = func(s string) error {
		var out []int
		for _, field := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		*p = out
		return nil
	}
}
