package as2

import (
	"fmt"
	"path/filepath"

	"github.com/as2/as2/rank/blend"
)

// BlendFileSpec returns the spec of a blend file to be written in folder
// dir (as2 tune blend --out): bias, and the rankers specs (as OpenRanker
// reads them; files named relative to the current folder) with weights.
// Model files are named relative to dir, as OpenRanker reads them back. A
// blend file among specs is written as its rankers, each weight times the
// one it gets here, and its bias too, so that the file is flat (OpenRanker
// refuses a blend in a blend) and scores as the nested blend did. A ranker
// named twice gets the sum of its weights.
func BlendFileSpec(dir string, specs []string, weights []float64, bias float64) (blend.Spec, error) {
	if len(specs) != len(weights) {
		return blend.Spec{}, fmt.Errorf("%d rankers and %d weights", len(specs), len(weights))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return blend.Spec{}, err
	}
	spec := blend.Spec{Bias: bias}
	for i, name := range specs {
		if err := addFlat(&spec, abs, name, "", weights[i]); err != nil {
			return blend.Spec{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	return spec, nil
}

// addFlat adds the ranker name (a rule-based ranker, or a file named
// relative to the folder from; "" for the current one) to spec with weight
// w, naming files relative to dir. A blend file is added as its rankers;
// one level is all there is, since a blend file holds no blend.
func addFlat(spec *blend.Spec, dir, name, from string, w float64) error {
	file := blendMemberFile(from, name)
	if file == "" {
		spec.Add(name, w)
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if filepath.Ext(abs) == ".json" {
		inner, err := readBlendSpec(abs)
		if err != nil {
			return err
		}
		if inner.Gate != nil {
			return fmt.Errorf("%s: a blend with a gate cannot be flattened into another blend", abs)
		}
		spec.Bias += w * inner.Bias
		for i, n := range inner.Rankers {
			if err := addFlat(spec, dir, n, filepath.Dir(abs), w*inner.Weights[i]); err != nil {
				return fmt.Errorf("%s: %w", abs, err)
			}
		}
		return nil
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return err
	}
	spec.Add(rel, w)
	return nil
}
