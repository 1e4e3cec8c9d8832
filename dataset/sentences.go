package dataset

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// CandidateSentences are the distinct candidate sentences (trimmed,
// non-empty) of every question of splits, in the order first met: an
// answer pool of real sentences.
func CandidateSentences(splits ...[]Question) []string {
	seen := map[string]bool{}
	var texts []string
	for _, qs := range splits {
		for _, q := range qs {
			for _, c := range q.Candidates {
				if t := strings.TrimSpace(c.Text); t != "" && !seen[t] {
					seen[t] = true
					texts = append(texts, t)
				}
			}
		}
	}
	return texts
}

// WriteSentences writes texts as ID<TAB>TEXT lines, the ids s1, s2, ...,
// each text's runs of white space (tabs and line breaks included) made one
// space, so that every text stays one line of as2 index build --answers.
func WriteSentences(w io.Writer, texts []string) error {
	bw := bufio.NewWriter(w)
	for i, t := range texts {
		fmt.Fprintf(bw, "s%d\t%s\n", i+1, strings.Join(strings.Fields(t), " "))
	}
	return bw.Flush()
}
