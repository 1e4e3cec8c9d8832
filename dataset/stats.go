package dataset

// Stats are the statistics of Table 2 of the Cosinet paper (Bonadiman &
// Moschitti 2020, section 2.1), computed over the questions given.
type Stats struct {
	Questions       int     `json:"questions"`
	Candidates      int     `json:"candidates"`
	Positives       int     `json:"positives"`
	Answered        int     `json:"answered"`         // questions with >= 1 positive
	AnsweredPercent float64 `json:"answered_percent"` // 100 * Answered / Questions
	AvgCandidates   float64 `json:"avg_candidates"`
	AvgQuestionLen  float64 `json:"avg_question_tokens"`
	AvgCandidateLen float64 `json:"avg_candidate_tokens"`
	// RandomP1 is the expected P@1 of a random ranking, averaged over the
	// answered questions: the mean of positives/candidates.
	RandomP1 float64 `json:"random_p@1"`
}

// ComputeStats computes Stats; lengths are counted in tokens of tokenize.
func ComputeStats(qs []Question, tokenize func(string) []string) Stats {
	var s Stats
	var qTok, cTok int
	for i := range qs {
		q := &qs[i]
		s.Questions++
		s.Candidates += len(q.Candidates)
		qTok += len(tokenize(q.Text))
		for _, c := range q.Candidates {
			cTok += len(tokenize(c.Text))
		}
		if p := q.Positives(); p > 0 {
			s.Positives += p
			s.Answered++
			s.RandomP1 += float64(p) / float64(len(q.Candidates))
		}
	}
	if s.Questions > 0 {
		s.AnsweredPercent = 100 * float64(s.Answered) / float64(s.Questions)
		s.AvgCandidates = float64(s.Candidates) / float64(s.Questions)
		s.AvgQuestionLen = float64(qTok) / float64(s.Questions)
	}
	if s.Candidates > 0 {
		s.AvgCandidateLen = float64(cTok) / float64(s.Candidates)
	}
	if s.Answered > 0 {
		s.RandomP1 /= float64(s.Answered)
	}
	return s
}
