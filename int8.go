package as2

import (
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
)

// WithInt8 sets whether OpenRanker loads the transformer models a spec
// names (the built-in model, cross-encoder and dual encoder files, Hugging
// Face folders; in blends and cascades too) for int8 inference (package
// quant): their linear layers run as int8, with a file's stored int8
// weights used as they are. Other rankers are unchanged. Where the kernels
// run their generic path, which has no fast int8 products, the models stay
// float32.
//
// Without it, the built-in model runs int8 (its int8 MAP is within 0.3 of
// float32's on WikiQA, TrecQA and SQuAD-sent test: docs/model-card.md)
// and model files and folders float32, whose int8 accuracy as2 has not
// measured. WithInt8(false) runs the built-in model float32 too.
func WithInt8(on bool) RankerOption {
	return func(r *rankerOptions) { r.int8, r.int8Set = on, true }
}

// int8Options are the OpenRanker options of the Int8 and Float32 settings
// of RankerChoice and ServerConfig: Int8 is WithInt8(true), Float32
// WithInt8(false), neither the default (and both is Int8).
func int8Options(int8, float32 bool) []RankerOption {
	switch {
	case int8:
		return []RankerOption{WithInt8(true)}
	case float32:
		return []RankerOption{WithInt8(false)}
	}
	return nil
}

// builtinInt8 reports whether the built-in model runs int8: unless
// WithInt8(false).
func (o *rankerOptions) builtinInt8() bool { return o.int8 || !o.int8Set }

// builtinRanker is the built-in ranker, int8 when int8 is set.
func builtinRanker(int8 bool) (rank.Ranker, error) {
	if int8 {
		return builtin.Int8Ranker()
	}
	return builtin.Ranker()
}

// useInt8 switches m to int8 inference when int8 is set (quant.Apply;
// m's weights are float32, rounded per output).
func useInt8(m rank.Ranker, int8 bool) error {
	if !int8 {
		return nil
	}
	_, err := quant.Apply(m, nil)
	return err
}
