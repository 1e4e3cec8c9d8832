package text

// stopwordList is the NLTK English stopword list (nltk_data
// corpora/stopwords/english, 179 words, derived from the SMART list), plus
// the Penn Treebank clitic tokens Tokenize produces for contractions that
// the list has as whole words: "n't", "'s", "'re", "'ll", "'ve", "'d", "'m",
// and the stems "ca" and "wo" of "can't" and "won't". Kept sorted.
var stopwordList = []string{
	"'d", "'ll", "'m", "'re", "'s", "'ve", "a", "about", "above", "after",
	"again", "against", "ain", "all", "am", "an", "and", "any", "are", "aren",
	"aren't", "as", "at", "be", "because", "been", "before", "being", "below",
	"between", "both", "but", "by", "ca", "can", "couldn", "couldn't", "d",
	"did", "didn", "didn't", "do", "does", "doesn", "doesn't", "doing", "don",
	"don't", "down", "during", "each", "few", "for", "from", "further", "had",
	"hadn", "hadn't", "has", "hasn", "hasn't", "have", "haven", "haven't",
	"having", "he", "her", "here", "hers", "herself", "him", "himself", "his",
	"how", "i", "if", "in", "into", "is", "isn", "isn't", "it", "it's", "its",
	"itself", "just", "ll", "m", "ma", "me", "mightn", "mightn't", "more",
	"most", "mustn", "mustn't", "my", "myself", "n't", "needn", "needn't", "no",
	"nor", "not", "now", "o", "of", "off", "on", "once", "only", "or", "other",
	"our", "ours", "ourselves", "out", "over", "own", "re", "s", "same", "shan",
	"shan't", "she", "she's", "should", "should've", "shouldn", "shouldn't",
	"so", "some", "such", "t", "than", "that", "that'll", "the", "their",
	"theirs", "them", "themselves", "then", "there", "these", "they", "this",
	"those", "through", "to", "too", "under", "until", "up", "ve", "very",
	"was", "wasn", "wasn't", "we", "were", "weren", "weren't", "what", "when",
	"where", "which", "while", "who", "whom", "why", "will", "with", "wo",
	"won", "won't", "wouldn", "wouldn't", "y", "you", "you'd", "you'll",
	"you're", "you've", "your", "yours", "yourself", "yourselves",
}

var stopwords = setOf(stopwordList...)

// IsStopword reports whether the (lowercase) token is in the English stopword list.
func IsStopword(tok string) bool {
	_, ok := stopwords[tok]
	return ok
}

// Stopwords returns a copy of the list (sorted).
func Stopwords() []string {
	return append([]string(nil), stopwordList...)
}

// RemoveStopwords returns toks without stopwords (new slice).
func RemoveStopwords(toks []string) []string {
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if !IsStopword(t) {
			out = append(out, t)
		}
	}
	return out
}
