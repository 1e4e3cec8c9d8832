package passage

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// limited is a ranker with an input limit, as a cross-encoder has: it is
// given passages, not sentences, and remembers the longest.
type limited struct {
	rank.Ranker
	maxTokens int
	longest   int // tokens of the longest candidate it was given
}

func (l *limited) MaxInputTokens() int { return l.maxTokens }

func (l *limited) Score(ctx context.Context, q *dataset.Question) ([]float64, error) {
	for _, c := range q.Candidates {
		l.longest = max(l.longest, len(text.Tokenize(c.Text)))
	}
	return l.Ranker.Score(ctx, q)
}

// fakePair is a pair encoder of length n.
type fakePair struct {
	encoder.PairEncoder
	n int
}

func (f fakePair) MaxLen() int { return f.n }

// crossEncoder has a cross-encoder's Encoder method.
type crossEncoder struct {
	rank.Ranker
	enc encoder.PairEncoder
}

func (c crossEncoder) Encoder() encoder.PairEncoder { return c.enc }

func bm25(t *testing.T) rank.Ranker {
	t.Helper()
	r, err := rank.New("bm25", rank.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLength(t *testing.T) {
	b := bm25(t)
	const question = "who wrote hamlet?" // 4 tokens
	tests := []struct {
		name         string
		r            rank.Ranker
		want         int
		passageLevel bool
	}{
		{"no input limit: sentence-level", b, DefaultTokens, false},
		{"InputLimiter", &limited{Ranker: b, maxTokens: 100}, 96, true},
		{"cross-encoder of 512 pieces", crossEncoder{b, fakePair{n: 512}}, (512-3)*3/4 - 4, true},
		{"cross-encoder without an encoder", crossEncoder{b, nil}, DefaultTokens, false},
		{"no room left for the passage", &limited{Ranker: b, maxTokens: 6}, MinTokens, true},
		{"a limit of 0 is none", &limited{Ranker: b}, DefaultTokens, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, pl := Length(tt.r, question)
			if n != tt.want || pl != tt.passageLevel {
				t.Errorf("Length = %d, %v; want %d, %v", n, pl, tt.want, tt.passageLevel)
			}
		})
	}
}

func TestBeginWithin(t *testing.T) {
	// Twelve sentences of ten tokens each; passages of at most 25 tokens
	// are two sentences overlapping by one, so passage k begins at token
	// 10k.
	doc := strings.TrimSpace(strings.Repeat("One two three four five six seven eight nine. ", 12))
	sents := text.SplitSentences(doc)
	ps := text.SplitPassages(doc, sents, 25)
	if len(sents) != 12 || len(ps) != 11 || ps[1].First != 1 {
		t.Fatalf("%d sentences, %d passages (second from sentence %d): want 12, 11 and 1", len(sents), len(ps), ps[1].First)
	}
	for _, tt := range []struct{ maxTokens, want int }{
		{1, 1}, // the first passage always counts
		{10, 1},
		{11, 2},
		{35, 4},
		{1000, 11},
	} {
		if got := beginWithin(sents, ps, tt.maxTokens); got != tt.want {
			t.Errorf("beginWithin(%d) = %d, want %d", tt.maxTokens, got, tt.want)
		}
	}
}

func TestCentral(t *testing.T) {
	// Passages of sentences [0,3), [2,5), [4,6): sentence 2 sits at the
	// end of the first and the start of the second (a tie: the first);
	// sentence 4 is central in neither of its two, and 1 in the first.
	ps := []text.Passage{{First: 0, Last: 3}, {First: 2, Last: 5}, {First: 4, Last: 6}}
	for _, tt := range []struct{ sentence, want int }{{0, 0}, {1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 2}, {6, -1}} {
		if got := Central(ps, tt.sentence); got != tt.want {
			t.Errorf("Central(sentence %d) = %d, want %d", tt.sentence, got, tt.want)
		}
	}
}

// article is a 2,964-word article (SQuAD v1.1 dev's "Packet switching",
// CC BY-SA 4.0; the service's test document) and a question answered two
// thirds of the way in.
func article(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../serve/testdata/packet-switching.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

const question, answer = "Who developed DATAPAC?", "Bell Northern Research"

// checkPassages checks what every ranked document's passages must be:
// best first, each the document's own text at its offsets and the
// passage of its index, its sentence (if any) within it, and the document
// scored as its best.
func checkPassages(t *testing.T, docs []string, d Document, plen int, sentenceLevel bool) {
	t.Helper()
	doc := docs[d.Index]
	ps := text.SplitPassages(doc, text.SplitSentences(doc), plen)
	if d.Total != len(ps) {
		t.Errorf("document %d: Total %d, want its %d passages", d.Index, d.Total, len(ps))
	}
	for k, p := range d.Passages {
		if k > 0 && p.Score > d.Passages[k-1].Score {
			t.Errorf("passage %d scores %g above its predecessor's %g", k, p.Score, d.Passages[k-1].Score)
		}
		if doc[p.Start:p.End] != p.Text || p.Index >= len(ps) || ps[p.Index] != p.Passage {
			t.Errorf("passage %d (index %d) [%d, %d): not the document's passage at its offsets", k, p.Index, p.Start, p.End)
		}
		if (p.Sentence != nil) != sentenceLevel {
			t.Fatalf("passage %d: sentence %v, want one: %v", k, p.Sentence, sentenceLevel)
		}
		if s := p.Sentence; s != nil && (s.Start < p.Start || s.End > p.End || doc[s.Start:s.End] != s.Text) {
			t.Errorf("passage %d [%d, %d): its sentence %+v is not within it", k, p.Start, p.End, *s)
		}
	}
	if b := d.Best(); b == nil || b.Score != d.Score {
		t.Errorf("document %d scores %g, not its best passage's (%v)", d.Index, d.Score, b)
	}
}

// TestRankLongDocument: the passage that answers comes first, with its
// offsets, whether the ranker reads sentences or passages; a cap that
// stops short of it is reported.
func TestRankLongDocument(t *testing.T) {
	b := bm25(t)
	docs := []string{"Hamlet is a tragedy.", article(t)}
	tests := []struct {
		name          string
		r             rank.Ranker
		sentenceLevel bool
	}{
		{"sentence-level", b, true},
		{"passage-level", &limited{Ranker: b, maxTokens: 128}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plen, _ := Length(tt.r, question)
			ranked, err := Rank(context.Background(), tt.r, question, docs, Options{MaxChunks: 100})
			if err != nil {
				t.Fatal(err)
			}
			if len(ranked) != 2 || ranked[0].Index != 1 || ranked[1].Passages != nil {
				t.Fatalf("ranking %+v: want the article first, split, and the short document read whole", ranked)
			}
			d := ranked[0]
			checkPassages(t, docs, d, plen, tt.sentenceLevel)
			if d.Truncated() || d.Scored() != d.Total || d.Total < 20 {
				t.Errorf("%d of %d passages scored with a cap of 100: want them all, over 20", d.Scored(), d.Total)
			}
			best := d.Best()
			if !strings.Contains(best.Text, answer) || len(best.Text) >= len(docs[1])/4 {
				t.Errorf("best passage [%d, %d) %q: want a passage holding %q", best.Start, best.End, best.Text, answer)
			}
			if best.Sentence != nil && !strings.Contains(best.Sentence.Text, answer) {
				t.Errorf("best sentence %q: want the one holding %q", best.Sentence.Text, answer)
			}

			// Two passages stop before the answer: the article is cut, and
			// says so.
			ranked, err = Rank(context.Background(), tt.r, question, docs, Options{MaxChunks: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ranked {
				if d.Index != 1 {
					continue
				}
				checkPassages(t, docs, d, plen, tt.sentenceLevel)
				if !d.Truncated() || d.Scored() != 2 || strings.Contains(d.Best().Text, answer) || d.Best().End > len(docs[1])/3 {
					t.Errorf("capped at 2: %d of %d scored, truncated %v, best [%d, %d): want 2, truncated, before the answer", d.Scored(), d.Total, d.Truncated(), d.Best().Start, d.Best().End)
				}
			}
		})
	}
	if l := tests[1].r.(*limited); l.longest > 128 {
		t.Errorf("the passage-level ranker was given %d tokens, over its 128", l.longest)
	}
}

// TestSentenceLevelScores: with a sentence-level ranker, a passage scores
// as its best sentence (the sentences scored together, as one question's
// candidates), and the best passage is the one where the best sentence
// sits most central.
func TestSentenceLevelScores(t *testing.T) {
	b := bm25(t)
	doc := article(t)
	sents := text.SplitSentences(doc)
	ps := text.SplitPassages(doc, sents, DefaultTokens)
	var texts []string
	for _, s := range sents {
		texts = append(texts, s.Text)
	}
	ranked, err := rank.Texts(context.Background(), b, question, texts)
	if err != nil {
		t.Fatal(err)
	}
	score := make([]float64, len(sents))
	for _, sc := range ranked {
		score[sc.Index] = sc.Score
	}
	docs, err := Rank(context.Background(), b, question, []string{doc}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := docs[0]
	if len(d.Passages) != len(ps) {
		t.Fatalf("%d passages ranked, want all %d", len(d.Passages), len(ps))
	}
	for _, p := range d.Passages {
		want := math.Inf(-1)
		for j := p.First; j < p.Last; j++ {
			want = max(want, score[j])
		}
		if p.Score != want || score[indexOf(sents, *p.Sentence)] != want {
			t.Errorf("passage %d scores %g with sentence %q: want its best sentence's %g", p.Index, p.Score, p.Sentence.Text, want)
		}
	}
	if k := Central(ps, ranked[0].Index); d.Best().Index != k {
		t.Errorf("best passage %d, want %d, where the best sentence %d is most central", d.Best().Index, k, ranked[0].Index)
	}
}

func indexOf(sents []text.Sentence, s text.Sentence) int {
	for i, x := range sents {
		if x == s {
			return i
		}
	}
	return -1
}

// TestSplitAndEmpty: a short document is read whole unless Split asks
// for its passages (then it is one); an empty one is never scored and
// comes last, read whole.
func TestSplitAndEmpty(t *testing.T) {
	b := bm25(t)
	docs := []string{"  ", "Hamlet is a play. Shakespeare wrote Hamlet."}
	for _, tt := range []struct {
		split    bool
		passages int
	}{{false, 0}, {true, 1}} {
		ranked, err := Rank(context.Background(), b, "who wrote hamlet?", docs, Options{Split: tt.split})
		if err != nil {
			t.Fatal(err)
		}
		if len(ranked) != 2 || ranked[0].Index != 1 || ranked[1].Index != 0 || !math.IsInf(ranked[1].Score, -1) || ranked[1].Passages != nil {
			t.Fatalf("split %v: %+v: want the play, then the empty document unscored", tt.split, ranked)
		}
		d := ranked[0]
		if len(d.Passages) != tt.passages || d.Total != 1 || d.Truncated() {
			t.Errorf("split %v: %d passages of %d, truncated %v; want %d of 1", tt.split, len(d.Passages), d.Total, d.Truncated(), tt.passages)
		}
		if tt.split && (d.Best().Text != docs[1] || d.Best().Sentence == nil || d.Best().Sentence.Text != "Shakespeare wrote Hamlet.") {
			t.Errorf("split: best %+v: want the whole text, its best sentence the answer", d.Best())
		}
	}
}

// TestCrossEncoder: a real cross-encoder (a tiny BERT checkpoint of 64
// positions, random weights) is passage-level: its limit comes from its
// encoder, each passage fits it, and no passage names a sentence.
func TestCrossEncoder(t *testing.T) {
	ce, err := crossencoder.LoadHF(encodertest.BERTDir(t))
	if err != nil {
		t.Fatal(err)
	}
	plen, passageLevel := Length(ce, question)
	if want := (ce.Encoder().MaxLen()-3)*3/4 - len(text.Tokenize(question)); !passageLevel || plen != want {
		t.Fatalf("Length = %d, %v; want %d, true", plen, passageLevel, want)
	}
	docs := []string{article(t)}
	ranked, err := Rank(context.Background(), ce, question, docs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := ranked[0]
	checkPassages(t, docs, d, plen, false)
	if d.Total <= 24 || d.Truncated() {
		t.Errorf("%d of %d passages scored: want all, more than the 24 of 200 tokens", d.Scored(), d.Total)
	}
	for _, p := range d.Passages {
		if n := len(text.Tokenize(p.Text)); n > plen && p.Last-p.First > 1 {
			t.Errorf("passage %d has %d tokens, over the cross-encoder's %d", p.Index, n, plen)
		}
	}
}
