package evaluation

import (
	"io"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/trec"
)

// WriteRun writes the report's rankings as a TREC run ("qid Q0 docid rank
// score tag"), with the ranker's scores. trec_eval re-sorts each question by
// score and orders equal scores by docid, not by document order, so its
// numbers match as2's exactly when a question's scores are distinct (as for
// RR, WO+RR and learned models) and may differ where a ranker ties.
func WriteRun(w io.Writer, rep *Report, tag string) error {
	var run trec.Run
	for _, r := range rep.Rankings {
		for k, s := range r.Ranked {
			run.Add(trec.Result{QueryID: r.Question.ID, DocID: r.Question.Candidates[s.Index].ID, Rank: k + 1, Score: s.Score, Tag: tag})
		}
	}
	return trec.WriteRun(w, run)
}

// Qrels returns the labels of qs as TREC qrels (relevance 0 or 1).
func Qrels(qs []dataset.Question) trec.Qrels {
	q := trec.Qrels{}
	for i := range qs {
		docs := make(map[string]int, len(qs[i].Candidates))
		for _, c := range qs[i].Candidates {
			if c.Label != dataset.Unlabeled {
				docs[c.ID] = c.Label
			}
		}
		q[qs[i].ID] = docs
	}
	return q
}

// WriteQrels writes the labels of qs as TREC qrels.
func WriteQrels(w io.Writer, qs []dataset.Question) error {
	return trec.WriteQrels(w, Qrels(qs))
}
