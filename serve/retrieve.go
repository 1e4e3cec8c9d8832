package serve

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/as2/as2/index"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/text"
)

// Index is a pool of answers that POST /v1/retrieve searches: a retriever
// over it and the texts of its answers by id. A retriever returns ids and
// scores only, so the texts travel beside it, as index.Bundle keeps them;
// how the retriever is rebuilt (its question encoder, its index kind) is
// the caller's business, which keeps this package on index's seam.
type Index struct {
	Retriever index.Retriever
	// Texts holds the text of every answer the retriever can return.
	Texts map[string]string
	// Description says what the index is, for GET /v1/models (optional).
	Description string
}

// DefaultDepth is how many answers /v1/retrieve retrieves before a rerank
// stage when the request gives no depth (and k is smaller): the
// "retrieve:100" of a cascade, enough for a reranker to find what the
// retriever ranked low, few enough to rerank in milliseconds.
const DefaultDepth = 100

// DefaultK is how many answers /v1/retrieve returns when the request gives
// no k.
const DefaultK = 10

// AddIndex serves x under name on /v1/retrieve. Call it before serving:
// the indexes are read without locks.
func (s *Server) AddIndex(name string, x Index) error {
	switch {
	case name == "":
		return errors.New("serve: an index without a name")
	case x.Retriever == nil:
		return fmt.Errorf("serve: index %q has no retriever", name)
	}
	if _, dup := s.indexes[name]; dup {
		return fmt.Errorf("serve: index %q added twice", name)
	}
	if s.indexes == nil {
		s.indexes = map[string]Index{}
	}
	s.indexes[name] = x
	s.inames = append(s.inames, name)
	sort.Strings(s.inames)
	return nil
}

// Hybrid describes an index that fuses the answer lists of indexes already
// added (index.Fused): BM25's and a dual encoder's over one pool, say,
// which is how as2's best ReQA row retrieves.
type Hybrid struct {
	// Fusion is index.FusionRRF (the default) or index.FusionRelative.
	Fusion string
	// Indexes names the fused indexes, which must hold the same pool:
	// fusion adds up an answer's scores by its id.
	Indexes []string
	// Weights holds one weight per index; nil: all 1.
	Weights []float64
}

// ParseHybrid reads a hybrid index's spec, FUSION:NAME[*WEIGHT],NAME...,
// e.g. "relative:faq-bm25*2,faq-use" (the fusion may be left out: rrf).
func ParseHybrid(spec string) (Hybrid, error) {
	var h Hybrid
	list := spec
	if f, rest, ok := strings.Cut(spec, ":"); ok {
		h.Fusion, list = f, rest
	}
	if err := (index.Fused{Fusion: h.Fusion}).Check(); err != nil {
		return Hybrid{}, err
	}
	weighted := false
	for _, part := range strings.Split(list, ",") {
		name, ws, hasW := strings.Cut(part, "*")
		w := 1.0
		if hasW {
			var err error
			if w, err = strconv.ParseFloat(ws, 64); err != nil || !(w > 0 && w <= 1e3) {
				return Hybrid{}, fmt.Errorf("index %q: weight %q: want a number more than 0, at most 1000", name, ws)
			}
			weighted = true
		}
		if name == "" {
			return Hybrid{}, fmt.Errorf("%q: an empty index name (want FUSION:NAME[*WEIGHT],NAME...)", spec)
		}
		h.Indexes, h.Weights = append(h.Indexes, name), append(h.Weights, w)
	}
	if len(h.Indexes) < 2 {
		return Hybrid{}, fmt.Errorf("%q: fusion needs two indexes or more", spec)
	}
	if !weighted {
		h.Weights = nil
	}
	return h, nil
}

// AddHybrid serves under name the fusion of indexes added before it: each
// lists max(depth, DefaultDepth) answers (depth the request's, or k) and
// the fused list is cut to what the request asks for.
func (s *Server) AddHybrid(name string, h Hybrid) error {
	if len(h.Indexes) < 2 {
		return fmt.Errorf("serve: hybrid index %q fuses %d index(es); fusion needs two or more", name, len(h.Indexes))
	}
	fused := index.Fused{Fusion: h.Fusion, Weights: h.Weights, Depth: DefaultDepth}
	texts := map[string]string{}
	for i, member := range h.Indexes {
		x, ok := s.indexes[member]
		if !ok {
			return fmt.Errorf("serve: hybrid index %q: no index %q added before it", name, member)
		}
		if slices.Contains(h.Indexes[:i], member) {
			return fmt.Errorf("serve: hybrid index %q names %q twice", name, member)
		}
		for id, t := range x.Texts {
			if old, dup := texts[id]; dup && old != t {
				return fmt.Errorf("serve: hybrid index %q: indexes disagree on the text of answer %q; fusion adds scores by id, so they must hold one pool", name, id)
			}
			texts[id] = t
		}
		fused.Retrievers = append(fused.Retrievers, x.Retriever)
	}
	if err := fused.Check(); err != nil {
		return fmt.Errorf("serve: hybrid index %q: %w", name, err)
	}
	descs := make([]string, len(h.Indexes))
	for i, member := range h.Indexes {
		w := 1.0
		if h.Weights != nil {
			w = h.Weights[i]
		}
		descs[i] = fmt.Sprintf("%s (weight %g)", member, w)
	}
	fusion := cmp.Or(h.Fusion, index.FusionRRF)
	return s.AddIndex(name, Index{Retriever: fused, Texts: texts,
		Description: fmt.Sprintf("%s fusion of %s", fusion, strings.Join(descs, " and "))})
}

// RetrieveRequest is the body of POST /v1/retrieve: a question, searched in
// a named index, optionally followed by a rerank stage over the best Depth
// answers (the cascade retrieve:Depth → Rerank).
type RetrieveRequest struct {
	// Index names the index; it may be left out when the server has one.
	Index    string `json:"index"`
	Question string `json:"question"`
	K        *int   `json:"k,omitempty"` // answers returned (default DefaultK, at most Limits.MaxDocuments)
	// Rerank names a ranker of /v1/rerank (GET /v1/models lists them)
	// that reorders the retrieved answers; empty: no rerank stage.
	Rerank string `json:"rerank,omitempty"`
	// Depth is how many answers are retrieved for the rerank stage
	// (default max(k, DefaultDepth), at most Limits.MaxDocuments).
	Depth *int `json:"depth,omitempty"`
	// RetrievalWeight, with a rerank stage, orders the answers by the
	// reranker's score plus this times the retriever's, each min-max
	// scaled over the Depth answers (index.Reranked's relative score
	// fusion of the two stages); 0 or absent: the reranker's order alone.
	RetrievalWeight float64 `json:"retrieval_weight,omitempty"`
}

// RetrieveResult is one answer, best first.
type RetrieveResult struct {
	Rank int    `json:"rank"` // 1-based
	ID   string `json:"id"`
	Text string `json:"text"`
	// Score is the retriever's, or with a rerank stage the reranker's, or
	// with a retrieval weight the two stages' fused score. It is null for
	// an answer whose text is empty, which a rerank stage never scores and
	// ranks last.
	Score *float64 `json:"score"`
	// With a rerank stage: the retriever's score and 1-based rank.
	RetrievalScore *float64 `json:"retrieval_score,omitempty"`
	RetrievalRank  *int     `json:"retrieval_rank,omitempty"`
}

// RetrieveResponse is the body of a successful retrieve.
type RetrieveResponse struct {
	Index   string           `json:"index"`
	Rerank  string           `json:"rerank,omitempty"`
	Depth   int              `json:"depth,omitempty"` // answers retrieved for the rerank stage
	Results []RetrieveResult `json:"results"`
}

// lookupIndex resolves a request's index name; name is what the metrics label.
func (s *Server) lookupIndex(name string) (Index, string, error) {
	if name == "" {
		switch len(s.inames) {
		case 0:
			return Index{}, name, &apiError{http.StatusNotFound, CodeIndexNotFound, "the server has no index to retrieve from (as2 serve --index NAME=FILE)"}
		case 1:
			name = s.inames[0]
		default:
			return Index{}, name, badRequest(CodeInvalidRequest, "index: required, the server has %d: %s", len(s.inames), strings.Join(s.inames, ", "))
		}
	}
	x, ok := s.indexes[name]
	if !ok {
		have := "none"
		if len(s.inames) > 0 {
			have = strings.Join(s.inames, ", ")
		}
		return Index{}, name, &apiError{http.StatusNotFound, CodeIndexNotFound, fmt.Sprintf("unknown index %q (have %s; GET /v1/models lists them)", name, have)}
	}
	return x, name, nil
}

// retrieve serves POST /v1/retrieve. Its metrics' model label is the
// index's name, or INDEX/RANKER with a rerank stage: bounded by what the
// server was configured with, never by what requests send.
func (s *Server) retrieve(r *http.Request) (any, string, error) {
	var req RetrieveRequest
	if err := decode(r, &req); err != nil {
		return nil, req.Index, err
	}
	x, name, err := s.lookupIndex(req.Index)
	if err != nil {
		// An unknown name is the client's, not a label to keep.
		return nil, "", err
	}
	if err := s.checkQuestion("question", req.Question); err != nil {
		return nil, name, err
	}
	k := min(DefaultK, s.limits.MaxDocuments)
	if req.K != nil {
		k = *req.K
	}
	if k < 1 || k > s.limits.MaxDocuments {
		return nil, name, badRequest(CodeInvalidRequest, "k: %d; want 1 to %d (--max-documents)", k, s.limits.MaxDocuments)
	}
	depth := k
	label := name
	if !(req.RetrievalWeight >= 0 && req.RetrievalWeight <= 1e3) {
		return nil, name, badRequest(CodeInvalidRequest, "retrieval_weight: %v; want 0 to 1000", req.RetrievalWeight)
	}
	if req.Rerank == "" {
		if req.Depth != nil {
			return nil, name, badRequest(CodeInvalidRequest, "depth: only with rerank (without a rerank stage, k answers are retrieved)")
		}
		if req.RetrievalWeight != 0 {
			return nil, name, badRequest(CodeInvalidRequest, "retrieval_weight: only with rerank (it weighs the retriever's score against the reranker's)")
		}
	} else {
		if _, ok := s.rankers[req.Rerank]; !ok {
			return nil, name, &apiError{http.StatusNotFound, CodeModelNotFound, fmt.Sprintf("rerank: unknown model %q (GET /v1/models lists them)", req.Rerank)}
		}
		label = name + "/" + req.Rerank
		depth = max(k, min(DefaultDepth, s.limits.MaxDocuments))
		if req.Depth != nil {
			depth = *req.Depth
		}
		if depth < k || depth > s.limits.MaxDocuments {
			return nil, label, badRequest(CodeInvalidRequest, "depth: %d; want k (%d) to %d (--max-documents)", depth, k, s.limits.MaxDocuments)
		}
	}
	hits, err := x.Retriever.Retrieve(r.Context(), req.Question, depth)
	if err != nil {
		if ctxErr := r.Context().Err(); ctxErr != nil {
			return nil, label, ctxErr // 504 or 499, whatever the retriever wrapped
		}
		// An index whose answers live in another server fails alone:
		// 503 when that server is unreachable, 502 when it errs.
		switch {
		case errors.Is(err, index.ErrUnavailable):
			return nil, label, &apiError{http.StatusServiceUnavailable, CodeIndexUnavailable, fmt.Sprintf("index %s: %v", name, err)}
		case errors.Is(err, index.ErrBackend):
			return nil, label, &apiError{http.StatusBadGateway, CodeIndexBackend, fmt.Sprintf("index %s: %v", name, err)}
		}
		return nil, label, fmt.Errorf("index %s: retrieving: %w", name, err)
	}
	if len(hits) > depth {
		hits = hits[:depth]
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		t, ok := x.Texts[h.ID]
		if !ok {
			// The server was given a retriever and texts that disagree: a
			// configuration bug, not the request's fault.
			return nil, label, fmt.Errorf("index %s: answer %q has no text", name, h.ID)
		}
		texts[i] = t
	}
	resp := RetrieveResponse{Index: name, Results: []RetrieveResult{}}
	if req.Rerank == "" || len(hits) == 0 {
		for i, h := range hits[:min(k, len(hits))] {
			resp.Results = append(resp.Results, RetrieveResult{Rank: i + 1, ID: h.ID, Text: texts[i], Score: scoreJSON(h.Score)})
		}
		if req.Rerank != "" {
			resp.Rerank, resp.Depth = req.Rerank, depth
		}
		return resp, label, nil
	}
	resp.Rerank, resp.Depth = req.Rerank, depth
	// The answers come from the server's index, not the request, so
	// --max-text does not apply to them; their tokens still bound the
	// memory the ranker takes.
	if over, _ := text.TokensOver(s.limits.MaxTokens, texts...); over {
		return nil, label, tooLarge(CodeTooManyTokens, "depth %d: the retrieved answers have more than %d tokens in all (the limit, --max-tokens); ask for a smaller depth", depth, s.limits.MaxTokens)
	}
	// The retrieved answers become one question's candidates in retrieval
	// order, which rankers reading positions take as document order; an
	// empty one is ranked last unscored, as in /v1/rerank.
	ranked, err := rank.Texts(r.Context(), s.rankers[req.Rerank], req.Question, texts)
	if err != nil {
		return nil, label, err
	}
	if req.RetrievalWeight > 0 {
		ranked = index.FuseStages(ranked, hits, req.RetrievalWeight)
	}
	for i, sc := range ranked[:min(k, len(ranked))] {
		h := hits[sc.Index]
		retScore, retRank := h.Score, sc.Index+1
		resp.Results = append(resp.Results, RetrieveResult{Rank: i + 1, ID: h.ID, Text: texts[sc.Index], Score: scoreJSON(sc.Score),
			RetrievalScore: &retScore, RetrievalRank: &retRank})
	}
	return resp, label, nil
}
