package encoder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// HFFamily is a Hugging Face model family that a package reads from a
// checkpoint folder in HF's layout (config.json, model.safetensors,
// tokenizer files). Its package registers it (RegisterHF) beside its model
// file kind (Register), and OpenHF picks it by config.json's model_type or
// architectures.
type HFFamily struct {
	// Name is the family's name in messages, e.g. "distilbert".
	Name string
	// ModelTypes are the config.json model_type values the family reads,
	// e.g. "roberta", "xlm-roberta".
	ModelTypes []string
	// Architectures are the config.json architectures entries it reads,
	// e.g. "RobertaModel", "RobertaForSequenceClassification".
	Architectures []string
	// Tokenizer names the tokenizer it reads, e.g. "byte-level BPE
	// (tokenizer.json)", and Checkpoints well-known checkpoints of its
	// shape, for the docs' table of what loads.
	Tokenizer   string
	Checkpoints []string
	// Open reads the folder. An encoder with a sequence-classification
	// head exposes it as Head() *bert.Head, which the cross-encoder
	// scores with.
	Open func(dir string) (PairEncoder, error)
}

var hfFamilies []HFFamily

// RegisterHF makes a Hugging Face family readable by OpenHF. It panics on
// a model_type or architecture that another family claims, a programming
// error.
func RegisterHF(f HFFamily) {
	mu.Lock()
	defer mu.Unlock()
	for _, g := range hfFamilies {
		for _, t := range f.ModelTypes {
			if slices.Contains(g.ModelTypes, t) {
				panic("encoder: model_type " + t + " registered by " + g.Name + " and " + f.Name)
			}
		}
		for _, a := range f.Architectures {
			if slices.Contains(g.Architectures, a) {
				panic("encoder: architecture " + a + " registered by " + g.Name + " and " + f.Name)
			}
		}
	}
	hfFamilies = append(hfFamilies, f)
}

// HFFamilies lists the registered families, by name.
func HFFamilies() []HFFamily {
	mu.RLock()
	defer mu.RUnlock()
	out := slices.Clone(hfFamilies)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HFConfig is what OpenHF reads of a config.json to choose a family.
type HFConfig struct {
	ModelType     string   `json:"model_type"`
	Architectures []string `json:"architectures"`
}

// Architecture is the config's one architectures entry, or its list when
// it has none or several.
func (c HFConfig) Architecture() string {
	if len(c.Architectures) == 1 {
		return c.Architectures[0]
	}
	return fmt.Sprintf("%q", c.Architectures)
}

// HFFamilyOf is the registered family a config.json declares: by
// model_type, or, where that is missing, by its architectures entry. A
// config with no model_type and no known architecture is read as BERT's
// (old BERT checkpoints name no model_type), when the bert family is
// registered, whose reader names an unknown architecture. An unknown
// model_type is an error that names it and those this as2 reads.
func HFFamilyOf(c HFConfig) (HFFamily, error) {
	fams := HFFamilies()
	for _, f := range fams {
		if c.ModelType != "" && slices.Contains(f.ModelTypes, c.ModelType) {
			return f, nil
		}
	}
	if c.ModelType == "" {
		for _, f := range fams {
			for _, a := range c.Architectures {
				if slices.Contains(f.Architectures, a) {
					return f, nil
				}
			}
		}
		for _, f := range fams {
			if slices.Contains(f.ModelTypes, "bert") {
				return f, nil // whose reader names an unknown architecture
			}
		}
	}
	var types []string
	for _, f := range fams {
		types = append(types, f.ModelTypes...)
	}
	return HFFamily{}, fmt.Errorf("model_type %q (architectures %q) is not supported: as2 reads model_type %s", c.ModelType, c.Architectures, strings.Join(types, ", "))
}

// OpenHF opens a Hugging Face checkpoint folder as an encoder of the
// family its config.json declares, and returns that config.
func OpenHF(dir string) (PairEncoder, HFConfig, error) {
	path := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, HFConfig{}, fmt.Errorf("%s has no config.json: not a Hugging Face checkpoint folder", dir)
		}
		return nil, HFConfig{}, fmt.Errorf("hugging face checkpoint: %w", err)
	}
	var c HFConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, HFConfig{}, fmt.Errorf("%s: %w", path, err)
	}
	f, err := HFFamilyOf(c)
	if err != nil {
		return nil, c, fmt.Errorf("%s: %w", path, err)
	}
	e, err := f.Open(dir)
	if err != nil {
		return nil, c, err
	}
	return e, c, nil
}
