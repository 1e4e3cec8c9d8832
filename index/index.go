// Package index is the seam for answer retrieval, beside rank.Ranker. A
// ranker scores the candidates a question comes with; a retriever has no
// candidates: it holds a pool of answers known in advance (an FAQ, a
// site's sentences), encoded once, offline, and finds the best of them for
// a question in milliseconds.
//
// The seam has three parts, generic over the two representations of one
// scoring function: A, what is stored per answer, and Q, what a question
// is encoded into. A dual encoder's are both vectors, scored by their inner
// product (ENDX paper, section 3); HAS stores a binary matrix per answer
// and scores it by attention from the question's vector (HAS paper).
//
//   - an Encoder turns answer texts into A (offline) and a question into Q;
//   - an Index stores A under answer ids and searches them with a Q, and
//     persists through an io.Writer (its kind's reader rebuilds it);
//   - a Retriever joins the two: question text in, best answers out.
//
// # Index kinds
//
// This package defines the seam and its embedded index kinds; the dual
// encoders and HAS fill the encoder side.
//
//   - Flat: the exact scan over float32 vectors by inner product, on
//     as2's dot-product kernel, split over the CPUs for big pools.
//   - Binary: the exact scan over bit-packed sign codes by Hamming
//     distance (popcount), the nearest Rescore rescored by their float
//     vectors.
//   - HNSW: the approximate index for pools where exact scans get slow, a
//     hierarchical navigable small-world graph (Malkov and Yashunin 2018)
//     searched by inner product through the reduction of maximum
//     inner-product search to nearest neighbours; M, EfConstruction and
//     EfSearch trade build time, memory and speed for recall (recall@10
//     against Flat: ≥ 0.95 on the tests' random vectors, 0.9996 with
//     USE-Lite vectors of ReQA's test half at the default EfSearch). It is
//     implemented here because the released github.com/coder/hnsw finds
//     too few neighbours (see HNSW).
//   - BM25: an inverted index scored by rank's BM25 (with Terms, the
//     lexical encoder), the first baseline of answer retrieval.
//   - Matrices: HAS's stored answers, a bit-packed binary matrix per
//     answer (1 bit per word-state element), scored exhaustively by the
//     question's MatrixQuery (attention over the bits): attention-quality
//     ranking of a pool known in advance at 1/32 of float states' memory.
//   - Remote: answers stored in another system, a vector engine, which a
//     bundle records in place of the vectors (its engine and where the
//     answers live); package index/weaviate is the adapter to Weaviate.
//     Its errors wrap ErrUnavailable (the engine is unreachable) or
//     ErrBackend (it failed), so that a server fails that index alone.
//
// Every kind writes itself (WriteTo) in one checked format: a magic, the
// kind, a format version, the kind's body and a CRC-32C; ReadFlat,
// ReadBinary, ReadHNSW, ReadBM25 and ReadMatrices refuse another kind, an
// unknown version or a damaged file with a clear error (wrapping
// ErrCorrupt for damage), and never allocate more than the bytes present
// justify (FuzzRead); Read reads any of them, taking the kind from the
// header, and New makes an empty index of a kind named by its string (the
// one place that maps names to constructors). A Bundle wraps any kind's body with what a search command
// needs besides it (how to rebuild the question encoder, the answers'
// texts) in the same format, kind "bundle". Commands write index files
// atomically (a temporary file renamed over the target).
package index

import (
	"context"
	"fmt"
	"io"

	"github.com/as2/as2/rank"
)

// Hit is an answer found for a question.
type Hit struct {
	ID    string
	Score float64
}

// Encoder encodes answers into what an Index stores, and questions into
// what it is searched with.
type Encoder[A, Q any] interface {
	EncodeAnswers(ctx context.Context, texts []string) ([]A, error)
	EncodeQuestion(ctx context.Context, text string) (Q, error)
}

// Index stores encoded answers and finds the best ones for a question.
type Index[A, Q any] interface {
	// Add stores answers under ids (one each).
	Add(ids []string, answers []A) error
	// Search returns the k best answers for q, best first.
	Search(ctx context.Context, q Q, k int) ([]Hit, error)
	// Len is the number of answers stored.
	Len() int
	// WriteTo writes the index in its kind's versioned format.
	WriteTo(w io.Writer) (int64, error)
}

// Retriever finds the best answers of a stored pool for a question.
type Retriever interface {
	Retrieve(ctx context.Context, question string, k int) ([]Hit, error)
}

// NewRetriever returns the Retriever that encodes a question with enc and
// searches idx, which holds answers enc encoded.
func NewRetriever[A, Q any](enc Encoder[A, Q], idx Index[A, Q]) Retriever {
	return retriever[A, Q]{enc, idx}
}

type retriever[A, Q any] struct {
	enc Encoder[A, Q]
	idx Index[A, Q]
}

func (r retriever[A, Q]) Retrieve(ctx context.Context, question string, k int) ([]Hit, error) {
	q, err := r.enc.EncodeQuestion(ctx, question)
	if err != nil {
		return nil, fmt.Errorf("encoding the question: %w", err)
	}
	return r.idx.Search(ctx, q, k)
}

// Build encodes answers with enc and adds them to idx under ids.
func Build[A, Q any](ctx context.Context, enc Encoder[A, Q], idx Index[A, Q], ids, texts []string) error {
	if len(ids) != len(texts) {
		return fmt.Errorf("%d ids for %d answers", len(ids), len(texts))
	}
	answers, err := enc.EncodeAnswers(ctx, texts)
	if err != nil {
		return fmt.Errorf("encoding answers: %w", err)
	}
	return idx.Add(ids, answers)
}

// Reranked is the cascade retrieve:Depth → Ranker as a Retriever: the
// Depth best answers of Retriever become one question's candidates, in
// retrieval order (what rankers that read positions take as document
// order), and Ranker orders them. A hit's Score is then the ranker's.
// Texts gives each answer's text by id.
//
// With RetrievalWeight w > 0, the order is by a relative score fusion of
// the two stages instead (as Fused's FusionRelative): the ranker's scores
// and the retriever's, each min-max scaled over the Depth answers to
// [0, 1], summed with weights 1 and w; a hit's Score is that sum. A
// reranker trained on one document's sentences can miss what the
// retriever's collection-wide score knows (a rare word's weight, say).
type Reranked struct {
	Retriever       Retriever
	Ranker          rank.Ranker
	Depth           int
	Texts           map[string]string
	RetrievalWeight float64
}

// Retrieve implements Retriever: the k best of the Depth retrieved (all of
// them if k is larger), as Ranker orders them.
func (r Reranked) Retrieve(ctx context.Context, question string, k int) ([]Hit, error) {
	hits, err := r.Retriever.Retrieve(ctx, question, r.Depth)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		t, ok := r.Texts[h.ID]
		if !ok {
			return nil, fmt.Errorf("reranking: answer %q has no text", h.ID)
		}
		texts[i] = t
	}
	ranked, err := rank.Texts(ctx, r.Ranker, question, texts)
	if err != nil {
		return nil, fmt.Errorf("reranking: %w", err)
	}
	if r.RetrievalWeight > 0 {
		ranked = FuseStages(ranked, hits, r.RetrievalWeight)
	}
	out := make([]Hit, 0, min(k, len(ranked)))
	for _, s := range ranked[:min(k, len(ranked))] {
		out = append(out, Hit{ID: hits[s.Index].ID, Score: s.Score})
	}
	return out, nil
}
