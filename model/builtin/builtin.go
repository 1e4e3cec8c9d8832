package builtin

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/as2/as2/model"
	_ "github.com/as2/as2/model/crossencoder" // the architecture of the embedded file
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
	"github.com/as2/as2/trigger"
)

// Name is how commands, cascades and the service name the built-in model.
const Name = "builtin"

//go:embed default.as2
var file []byte

//go:embed calibration.json
var calibration []byte

//go:embed blend.json
var blendSpec []byte

// modelFile is how blend.json names the embedded model file.
const modelFile = "default.as2"

// load reads the embedded file once, on first use: the binary pays for it
// only when the built-in model ranks.
var load = sync.OnceValues(func() (model.Model, error) {
	m, err := model.Read(bytes.NewReader(file))
	if err != nil {
		return nil, fmt.Errorf("the built-in model: %w", err)
	}
	return m, nil
})

// Model returns the embedded model file's model, loaded on the first call
// (about a second) and shared by every caller after it; it is safe for
// concurrent use, as every as2 ranker is. Rank with Ranker, which may blend
// it with lexical rankers.
func Model() (model.Model, error) { return load() }

// blended builds the ranker blend.json describes, once.
var blended = sync.OnceValues(func() (rank.Ranker, error) {
	spec, err := blend.ReadSpec(bytes.NewReader(blendSpec))
	if err != nil {
		return nil, fmt.Errorf("the built-in model: %w", err)
	}
	return spec.Build(func(name string) (rank.Ranker, error) {
		if name == modelFile {
			return Model()
		}
		return rank.New(name, rank.DefaultOptions())
	})
})

// Ranker returns the built-in ranker: the embedded model, blended with the
// lexical rankers blend.json names (as2 tune blend), if any. Its scores
// are what Calibration turns into probabilities.
func Ranker() (rank.Ranker, error) { return blended() }

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

// Size is the embedded model file's size in bytes.
func Size() int { return len(file) }
