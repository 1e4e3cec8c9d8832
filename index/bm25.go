package index

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/as2/as2/rank"
)

// Terms is the lexical encoder: answers and questions become the terms
// rank's rule-based rankers match (rank.Options.Terms: as2's tokenizer,
// lowercased, punctuation dropped, stopwords optionally). It pairs with
// BM25.
type Terms struct{ rank.Options }

// EncodeAnswers implements Encoder.
func (t Terms) EncodeAnswers(ctx context.Context, texts []string) ([][]string, error) {
	out := make([][]string, len(texts))
	for i, s := range texts {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = t.Terms(s)
	}
	return out, nil
}

// EncodeQuestion implements Encoder.
func (t Terms) EncodeQuestion(_ context.Context, text string) ([]string, error) {
	return t.Terms(text), nil
}

// BM25 is an inverted index scored by Okapi BM25 exactly as rank.BM25
// scores a question's candidates (rank.BM25Term, Lucene's IDF from
// rank.Collection, the question's terms summed with their repeats), with
// the statistics (document frequencies, average length) of the whole pool:
// the first baseline of answer retrieval (ENDX paper, section 4.3). Only
// answers sharing a term with the question are scored, so one with none is
// never returned. It is safe for concurrent searches, not for a search
// during Add.
type BM25 struct {
	K1, B    float64
	coll     rank.Collection
	total    int // terms over all answers
	ids      []string
	lens     []int
	postings map[string][]posting
	terms    [][]string // kept for WriteTo
}

type posting struct {
	doc, tf int32
}

// BM25Kind is BM25's kind in the file format.
const BM25Kind = "bm25"

const bm25Version = 1

// NewBM25 returns an empty BM25 index with opts' k1 and b (the answers and
// questions are to be encoded with Terms{opts}).
func NewBM25(opts rank.Options) *BM25 {
	return &BM25{K1: opts.K1, B: opts.B, coll: rank.Collection{DF: map[string]int{}}, postings: map[string][]posting{}}
}

// NewBM25Retriever returns the BM25 retriever of opts over answers texts
// stored under ids.
func NewBM25Retriever(ctx context.Context, opts rank.Options, ids, texts []string) (Retriever, *BM25, error) {
	idx := NewBM25(opts)
	if err := Build(ctx, Terms{opts}, idx, ids, texts); err != nil {
		return nil, nil, err
	}
	return NewRetriever(Terms{opts}, idx), idx, nil
}

// Len implements Index.
func (x *BM25) Len() int { return len(x.ids) }

// Add implements Index: answers are their terms.
func (x *BM25) Add(ids []string, answers [][]string) error {
	if err := checkAdd(ids, len(answers), 0, func(int) int { return 0 }); err != nil {
		return err
	}
	if len(x.ids)+len(ids) > math.MaxInt32 {
		return fmt.Errorf("index: more than %d answers", math.MaxInt32)
	}
	for i, terms := range answers {
		doc := int32(len(x.ids))
		x.ids = append(x.ids, ids[i])
		x.lens = append(x.lens, len(terms))
		x.terms = append(x.terms, terms)
		tf := map[string]int32{}
		for _, t := range terms {
			if len(t) > maxString {
				return fmt.Errorf("index: answer %q: a term of %d bytes", ids[i], len(t))
			}
			tf[t]++
		}
		for t, f := range tf {
			x.postings[t] = append(x.postings[t], posting{doc, f})
			x.coll.DF[t]++
		}
		x.total += len(terms)
	}
	x.coll.N = len(x.ids)
	if x.coll.N > 0 {
		x.coll.AvgLen = float64(x.total) / float64(x.coll.N)
	}
	return nil
}

// Search implements Index: the k answers with the highest BM25 score for
// the question's terms q, best first (equal scores in the order added).
func (x *BM25) Search(ctx context.Context, q []string, k int) ([]Hit, error) {
	if k <= 0 || len(x.ids) == 0 {
		return nil, nil
	}
	scores := make([]float64, len(x.ids))
	var touched []int32
	for _, t := range q {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := x.coll.IDF(t)
		for _, p := range ps {
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += rank.BM25Term(idf, int(p.tf), x.lens[p.doc], x.coll.AvgLen, x.K1, x.B)
		}
	}
	best := newTopK(k)
	for _, d := range touched {
		best.offer(int(d), scores[d])
	}
	out := make([]Hit, 0, best.Len())
	for _, c := range best.sorted() {
		out = append(out, Hit{ID: x.ids[c.i], Score: c.score})
	}
	return out, nil
}

// WriteTo implements Index: kind "bm25", version 1; body: k1 and b
// (float64 bits as uint64), the ids, then each answer's terms (a uint32
// count and the terms as strings). The postings are rebuilt on reading.
func (x *BM25) WriteTo(w io.Writer) (int64, error) {
	fw := newFileWriter(w, BM25Kind, bm25Version)
	x.writeBody(fw)
	return fw.finish()
}

func (x *BM25) writeBody(fw *fileWriter) {
	fw.u64(math.Float64bits(x.K1))
	fw.u64(math.Float64bits(x.B))
	writeIDs(fw, x.ids)
	for _, ts := range x.terms {
		fw.u32(uint32(len(ts)))
		for _, t := range ts {
			fw.str(t)
		}
	}
}

// ReadBM25 reads an index written by BM25.WriteTo (see ReadFlat for
// errors).
func ReadBM25(r io.Reader) (*BM25, error) {
	return readKind(r, BM25Kind, bm25Version, readBM25Body)
}

// readBM25Body reads what writeBody wrote; the postings are built only
// once the body is whole.
func readBM25Body(fr *fileReader) *BM25 {
	k1, b := math.Float64frombits(fr.u64()), math.Float64frombits(fr.u64())
	if fr.err == nil && !(k1 >= 0 && k1 < 1e6 && b >= 0 && b <= 1) {
		fr.fail(fmt.Errorf("BM25 parameters k1 %v, b %v", k1, b))
	}
	ids := readIDs(fr)
	terms := make([][]string, 0, min(len(ids), 1<<16))
	for range ids {
		n := fr.u32()
		var ts []string
		for j := uint32(0); j < n && fr.err == nil; j++ {
			ts = append(ts, fr.str())
		}
		if fr.err != nil {
			break
		}
		terms = append(terms, ts)
	}
	x := NewBM25(rank.Options{K1: k1, B: b})
	if fr.err == nil {
		if err := x.Add(ids, terms); err != nil {
			fr.fail(err)
		}
	}
	return x
}

var _ Index[[]string, []string] = (*BM25)(nil)
