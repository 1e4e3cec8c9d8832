package builtin

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sync"

	"github.com/as2/as2/model"
	_ "github.com/as2/as2/model/crossencoder" // the architectures of the embedded files
	_ "github.com/as2/as2/model/dual"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
	"github.com/as2/as2/trigger"
)

// Name is how commands, cascades and the service name the built-in model.
const Name = "builtin"

// models holds the embedded model files, each named by its file name in
// blend.json: default.as2, the cross-encoder, and dual.as2, the dual
// encoder.
//
//go:embed *.as2
var models embed.FS

//go:embed calibration.json
var calibration []byte

//go:embed blend.json
var blendSpec []byte

// modelFile is the embedded model file Model returns.
const modelFile = "default.as2"

// loaders reads each embedded model file once, on first use: the binary
// pays for a model only when it ranks. loaders8 reads them for int8
// inference (quant.Read, which keeps no float32 copy of the int8
// weights), a second copy, loaded only if asked for: a process that ranks
// int8 only (the default) holds the models once, as int8.
var loaders, loaders8 = newLoaders(false), newLoaders(true)

func newLoaders(int8 bool) map[string]func() (model.Model, error) {
	entries, err := models.ReadDir(".")
	if err != nil {
		panic("builtin: " + err.Error()) // an embed.FS root always reads
	}
	l := make(map[string]func() (model.Model, error), len(entries))
	for _, e := range entries {
		name := e.Name()
		l[name] = sync.OnceValues(func() (model.Model, error) {
			b, err := models.ReadFile(name)
			if err == nil {
				var m model.Model
				if m, _, err = quant.Read(b, int8); err == nil {
					return m, nil
				}
			}
			return nil, fmt.Errorf("the built-in model %s: %w", name, err)
		})
	}
	return l
}

// Model returns the embedded cross-encoder, loaded on the first call
// (about a second) and shared by every caller after it; it is safe for
// concurrent use, as every as2 ranker is. Rank with Ranker, which blends
// it with the embedded dual encoder and lexical rankers.
func Model() (model.Model, error) { return loaders[modelFile]() }

// blended and blended8 build the ranker blend.json describes, once each,
// from loaders and loaders8.
var blended, blended8 = sync.OnceValues(blender(loaders)), sync.OnceValues(blender(loaders8))

func blender(loaders map[string]func() (model.Model, error)) func() (rank.Ranker, error) {
	return func() (rank.Ranker, error) {
		spec, err := blend.ReadSpec(bytes.NewReader(blendSpec))
		if err != nil {
			return nil, fmt.Errorf("the built-in model: %w", err)
		}
		r, err := spec.Build(func(name string) (rank.Ranker, error) {
			if load, ok := loaders[name]; ok {
				return load()
			}
			return rank.New(name, rank.DefaultOptions())
		})
		if err != nil {
			return nil, err
		}
		if reflect.TypeOf(r).Comparable() {
			builtMu.Lock()
			built = append(built, r)
			builtMu.Unlock()
		}
		return r, nil
	}
}

// Ranker returns the built-in ranker: the embedded model, blended with the
// lexical rankers blend.json names (as2 tune blend), if any. Its scores
// are what Calibration turns into probabilities.
func Ranker() (rank.Ranker, error) { return blended() }

// Int8Ranker returns the built-in ranker with both models running int8
// (package quant) on the weights stored in their files: a second
// ranker, loaded on its first call, and the one as2 ranks with by
// default. Where int8 would be slower
// (!quant.Supported(), the generic kernels) it is Ranker itself. Its
// scores differ from Ranker's by the activations' rounding, within what
// Calibration tolerates (docs/model-card.md gives the accuracy of both).
func Int8Ranker() (rank.Ranker, error) {
	if !quant.Supported() {
		return blended()
	}
	return blended8()
}

// Is reports whether r is the built-in ranker, Ranker's or Int8Ranker's
// (which Calibration calibrates), without loading either.
func Is(r rank.Ranker) bool {
	// Comparing interfaces panics on an uncomparable dynamic type.
	if r == nil || !reflect.TypeOf(r).Comparable() {
		return false
	}
	builtMu.Lock()
	defer builtMu.Unlock()
	return slices.Contains(built, r)
}

// built holds the rankers blender has built, for Is.
var (
	builtMu sync.Mutex
	built   []rank.Ranker
)

// Calibration returns the built-in model's answer-triggering calibration:
// Prob turns a document's best score into the probability that its
// sentence answers, and Answer tells whether that sentence is an answer.
func Calibration() trigger.Calibration { return calibrated() }

// calibrated decodes calibration.json once.
var calibrated = sync.OnceValue(func() trigger.Calibration {
	c, err := trigger.ReadCalibration(bytes.NewReader(calibration))
	if err != nil {
		// The file is part of the source: a bad one fails TestCalibration.
		panic("builtin: calibration.json: " + err.Error())
	}
	return c
})

// Size is the embedded model files' size in bytes.
func Size() int {
	n := 0
	for name := range loaders {
		if info, err := fs.Stat(models, name); err == nil {
			n += int(info.Size())
		}
	}
	return n
}
