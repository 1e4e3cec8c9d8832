package as2

import (
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/model/quant"
	"github.com/as2/as2/rank"
)

// WithInt8 makes OpenRanker load the transformer models a spec names (the
// built-in model, cross-encoder and dual encoder files, Hugging Face
// folders; in blends and cascades too) for int8 inference (package
// quant): their linear layers run as int8, with a file's stored int8
// weights used as they are. Other rankers are unchanged. Where the kernels
// run their generic path, which has no fast int8 products, the models stay
// float32. The default is float32; docs/model-card.md gives the accuracy each
// costs.
func WithInt8(on bool) RankerOption {
	return func(r *rankerOptions) { r.int8 = on }
}

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
