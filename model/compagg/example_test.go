package compagg_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/model/compagg"
)

// A Comp-Clip with latent clustering over (toy) word vectors scores a
// question's candidates like any rank.Ranker; train it with train.Train and
// save it with model.Save.
func ExampleNew() {
	vecs := embed.New(3)
	vecs.Add("who", []float32{1, 0, 0})
	vecs.Add("wrote", []float32{0, 1, 0})
	vecs.Add("hamlet", []float32{0, 0, 1})
	enc, err := encoder.NewStatic[float32](vecs)
	if err != nil {
		panic(err)
	}
	h := compagg.RecipeHyper(compagg.CompClip)
	h.Clusters = 8
	m, err := compagg.New(h, enc, 1)
	if err != nil {
		panic(err)
	}
	q := &dataset.Question{Text: "Who wrote Hamlet?", Candidates: []dataset.Candidate{
		{Text: "Hamlet is a tragedy."}, {Text: "Shakespeare wrote Hamlet.", Position: 1},
	}}
	scores, err := m.Score(context.Background(), q)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Config().Architecture, m.Params().Count(), "parameters,", len(scores), "scores")
	// Output: compclip 436801 parameters, 2 scores
}
