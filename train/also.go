package train

import (
	"fmt"
	"strings"

	"github.com/as2/as2/dataset"
)

// AddPairs adds to an in-batch run the (question, correct answer) pairs of
// more training splits (as2 train --also DATASET:SPLIT), each read by
// load, and names them in r.Dataset ("wikiqa+trecqa:train-all"): the
// in-batch objectives learn from (question, answer) pairs alone, so any
// benchmark's answered questions add to them. It returns the line that
// counts the pairs of each source.
func (r *Run) AddPairs(also []string, load func(spec string) ([]dataset.Question, error)) (string, error) {
	n := len(Pairs(r.Questions))
	counts := []string{fmt.Sprintf("%s %s: %d", r.Dataset, r.Split, n)}
	for _, spec := range also {
		qs, err := load(spec)
		if err != nil {
			return "", err
		}
		more := Pairs(qs)
		r.Pairs, n = append(r.Pairs, more...), n+len(more)
		counts = append(counts, fmt.Sprintf("%s: %d", spec, len(more)))
	}
	r.Dataset = strings.Join(append([]string{r.Dataset}, also...), "+")
	return fmt.Sprintf("training pairs: %s (%d in all)", strings.Join(counts, ", "), n), nil
}
