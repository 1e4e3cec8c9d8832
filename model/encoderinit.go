package model

import (
	"fmt"
	"strings"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/safetensors"
)

// InitEncoder sets enc's weights to those that model from fine-tuned:
// its parameters under encoder.TensorPrefix. It is transfer between
// architectures, e.g. a cross-encoder that starts from a dual encoder's
// USE-Lite, already trained for relevance, rather than from the
// pretrained weights (the transfer step of TANDA, Garg et al. 2020, with a
// model of another architecture as the source). Call it before the new
// model adopts enc.
//
// Both must have started from the same pretrained encoder (the same
// Spec().Identity), and from must have fine-tuned it: a model that kept
// its encoder frozen holds the pretrained weights, which enc has already.
func InitEncoder(enc encoder.Encoder[float32], from Model) error {
	cfg := from.Config()
	if got, want := cfg.Encoder.Identity, enc.Spec().Identity; got != want || cfg.Encoder.Kind != enc.Spec().Kind {
		return fmt.Errorf("the %s model's encoder is %s %s, not this model's %s %s: a different pretrained encoder",
			cfg.Architecture, cfg.Encoder.Kind, got, enc.Spec().Kind, want)
	}
	var tuned []safetensors.Tensor
	if t, ok := from.(interface{ Params() *nn.Params[float32] }); ok {
		for _, p := range encoder.ParamTensors("", t.Params()) {
			if strings.HasPrefix(p.Name, encoder.TensorPrefix) {
				tuned = append(tuned, p)
			}
		}
	}
	if len(tuned) == 0 {
		return fmt.Errorf("the %s model kept its encoder frozen: it has no fine-tuned encoder weights to start from", cfg.Architecture)
	}
	if err := encoder.LoadParams(enc.Params(), encoder.TensorPrefix, tuned); err != nil {
		return fmt.Errorf("the %s model's encoder weights: %w", cfg.Architecture, err)
	}
	return nil
}
