package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/model"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/train"
)

// UntrainedLabel names the ranker UntrainedCosinet returns in reports.
const UntrainedLabel = "cosinet+birnn (untrained)"

// UntrainedCosinet is what as2 bench infer times when given no model: a
// Cosinet+BiRNN with the default settings and random weights over the word
// vectors in embeddings, by default (for "") the data folder's (its speed
// does not depend on the weights).
func UntrainedCosinet(embeddings string) (rank.Ranker, error) {
	r, err := model.DefaultRecipe("cosinet", false, "")
	if err != nil {
		return nil, err
	}
	// train.NewModel is how as2 train builds its untrained model: the same
	// encoder and the same network as a run of the default recipe times.
	return train.NewModel(r, embeddings, "auto", nil)
}

// CheckInfer refuses Infer's bad settings, and a bad report format, before
// the data is loaded. Each error names the setting as prefix+name, name
// being as2 bench infer's flag ("--" prefix there, "" for a Go caller).
func CheckInfer(prefix string, repeat, clients int, format string) error {
	switch {
	case repeat < 1:
		return fmt.Errorf("%srepeat %d: must be at least 1", prefix, repeat)
	case clients < 1:
		return fmt.Errorf("%sconcurrency %d: must be at least 1", prefix, clients)
	}
	if err := CheckFormat(format); err != nil {
		return fmt.Errorf("%s%w", prefix, err)
	}
	return nil
}

// Infer times r scoring every question of qs repeat times, from clients
// concurrent clients that each score one question at a time, as a service
// would. The caller fills the result's Settings.
func Infer(ctx context.Context, r rank.Ranker, qs []dataset.Question, repeat, clients int) (Result, error) {
	tp, err := evaluation.MeasureThroughput(ctx, r, qs, repeat, clients)
	if err != nil {
		return Result{}, err
	}
	return Result{Benchmark: "infer", Machine: Machine(), Pairs: tp.Pairs, Seconds: tp.Wall.Seconds(),
		PairsPerSec: tp.PairsPerSecond(), P50ms: Millis(tp.P50), P99ms: Millis(tp.P99)}, nil
}

// TrainResult is the result of a timed training run of pairs candidate pairs in
// wall time, of a model of params parameters. The caller fills Settings.
func TrainResult(pairs, params int, wall time.Duration) Result {
	return Result{Benchmark: "train", Machine: Machine(), Params: params, Pairs: pairs, Seconds: wall.Seconds(),
		PairsPerSec: float64(pairs) / max(wall.Seconds(), 1e-9)}
}
