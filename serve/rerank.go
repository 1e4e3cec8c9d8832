package serve

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"net/http"

	"github.com/as2/as2/model/passage"
	"github.com/as2/as2/text"
	"github.com/as2/as2/trigger"
)

// Documents are the documents of a rerank request. Each is a string or,
// as Cohere's API allows, an object whose "text" is the document (its
// other fields are accepted and not read); null is an empty document.
type Documents []string

// UnmarshalJSON implements json.Unmarshaler.
func (d *Documents) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || (raw == nil && !bytes.Equal(bytes.TrimSpace(b), []byte("null"))) {
		return badRequest(CodeWrongType, "field \"documents\": %s given, want an array of strings or of objects with a \"text\"", jsonType(b))
	}
	out := make(Documents, len(raw))
	for i, r := range raw {
		switch r = bytes.TrimSpace(r); {
		case len(r) > 0 && r[0] == '"':
			if err := json.Unmarshal(r, &out[i]); err != nil {
				return badRequest(CodeMalformedJSON, "documents[%d]: %v", i, err)
			}
		case len(r) > 0 && r[0] == '{':
			var obj map[string]json.RawMessage
			var t string
			if err := json.Unmarshal(r, &obj); err != nil {
				return badRequest(CodeMalformedJSON, "documents[%d]: %v", i, err)
			}
			tr, ok := obj["text"]
			if !ok {
				return badRequest(CodeInvalidRequest, "documents[%d]: an object with no \"text\" field", i)
			}
			if err := json.Unmarshal(tr, &t); err != nil {
				return badRequest(CodeWrongType, "documents[%d].text: %s given, want a string", i, jsonType(tr))
			}
			out[i] = t
		case bytes.Equal(r, []byte("null")):
		default:
			return badRequest(CodeWrongType, "documents[%d]: %s given, want a string or an object with a \"text\"", i, jsonType(r))
		}
	}
	*d = out
	return nil
}

// jsonType names the JSON type of a value, for messages.
func jsonType(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// RerankRequest is the body of POST /v1/rerank and /v2/rerank, Cohere's
// rerank request. MaxTokensPerDoc is v2's; as2 scores only the passages
// that begin within a document's first MaxTokensPerDoc tokens.
type RerankRequest struct {
	Model           string    `json:"model"`
	Query           string    `json:"query"`
	Documents       Documents `json:"documents"`
	TopN            *int      `json:"top_n,omitempty"`
	ReturnDocuments bool      `json:"return_documents,omitempty"`
	MaxChunksPerDoc *int      `json:"max_chunks_per_doc,omitempty"`
	MaxTokensPerDoc *int      `json:"max_tokens_per_doc,omitempty"`
	RankFields      []string  `json:"rank_fields,omitempty"` // accepted for Cohere's clients; only "text" is read
	Priority        *int      `json:"priority,omitempty"`    // v2's; accepted, not used (admission is first come)
}

// DocumentText is a document as Cohere returns it.
type DocumentText struct {
	Text string `json:"text"`
}

// Span is a passage or sentence of a document: its text and byte offsets
// [Start, End) in the document's text.
type Span struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// RerankResult is one ranked document.
type RerankResult struct {
	Index int `json:"index"`
	// RelevanceScore is the probability that the document answers, in
	// [0, 1], when the model has a calibration (as Cohere's scores are);
	// otherwise the model's score. Null for an empty document, which is
	// never scored and comes last.
	RelevanceScore *float64 `json:"relevance_score"`
	// Score is the model's own score (its best passage's), uncalibrated.
	Score    *float64      `json:"score"`
	Document *DocumentText `json:"document,omitempty"`
	// Passage is the best passage of a document longer than the model's
	// input; Sentence the best sentence within it, for a sentence-level
	// ranker. Truncated says max_chunks_per_doc (or max_tokens_per_doc)
	// left some of the document's passages unscored.
	Passage   *Span `json:"passage,omitempty"`
	Sentence  *Span `json:"sentence,omitempty"`
	Truncated bool  `json:"truncated,omitempty"`
}

// RerankMeta is Cohere's response meta: the API version answered, and a
// warning for each document cut by max_chunks_per_doc.
type RerankMeta struct {
	APIVersion struct {
		Version string `json:"version"`
	} `json:"api_version"`
	Warnings []string `json:"warnings,omitempty"`
}

// RerankResponse is the body of a successful rerank (Cohere's shape, with
// as2's model, score, passage, sentence and truncated beside it).
type RerankResponse struct {
	ID      string         `json:"id"`
	Model   string         `json:"model"`
	Results []RerankResult `json:"results"`
	Meta    RerankMeta     `json:"meta"`
}

// rerankArgs is what the rerank routes share.
type rerankArgs struct {
	model, query string
	docs         []string
	topN         *int
	maxChunks    int // passages scored per document; 0: no cap
	maxTokens    int // v2's max_tokens_per_doc; 0: no cap
}

// rankDocuments checks a rerank request and ranks its documents, long ones
// by their passages, returning the model's name and calibration (nil:
// none).
func (s *Server) rankDocuments(r *http.Request, a rerankArgs, field string) ([]passage.Document, string, *trigger.Calibration, error) {
	rk, name, err := s.ranker(a.model)
	if err != nil {
		return nil, name, nil, err
	}
	if err := s.checkQuestion("query", a.query); err != nil {
		return nil, name, nil, err
	}
	if len(a.docs) == 0 {
		return nil, name, nil, badRequest(CodeInvalidRequest, "%s: empty; give at least one", field)
	}
	if len(a.docs) > s.limits.MaxDocuments {
		return nil, name, nil, tooLarge(CodeTooManyDocuments, "%s: %d given, the limit is %d", field, len(a.docs), s.limits.MaxDocuments)
	}
	if a.topN != nil && *a.topN < 1 {
		return nil, name, nil, badRequest(CodeInvalidRequest, "top_n: %d; want at least 1", *a.topN)
	}
	for i, d := range a.docs {
		if err := s.checkText(fmt.Sprintf("%s[%d]", field, i), d); err != nil {
			return nil, name, nil, err
		}
	}
	// Package passage is as2.Passages' and as2 rank's too: the library
	// and the service split and score a long document alike.
	p := passage.NewPlan(rk, a.query, a.docs, passage.Options{MaxChunks: a.maxChunks, MaxTokens: a.maxTokens})
	if err := s.checkTokens(field, p.Texts()); err != nil {
		return nil, name, nil, err
	}
	ranked, err := p.Rank(r.Context(), rk, a.query)
	if err != nil {
		return nil, name, nil, err
	}
	if a.topN != nil && *a.topN < len(ranked) {
		ranked = ranked[:*a.topN]
	}
	return ranked, name, s.calibration(name), nil
}

// caps reads max_chunks_per_doc (default DefaultMaxChunks) and v2's
// max_tokens_per_doc (default none: 0). The token cap is applied where the
// model's passage length is known (passage.NewPlan).
func caps(chunks, tokens *int) (maxChunks, maxTokens int, err error) {
	maxChunks = DefaultMaxChunks
	if chunks != nil {
		if *chunks < 1 {
			return 0, 0, badRequest(CodeInvalidRequest, "max_chunks_per_doc: %d; want at least 1", *chunks)
		}
		maxChunks = *chunks
	}
	if tokens != nil {
		if *tokens < 1 {
			return 0, 0, badRequest(CodeInvalidRequest, "max_tokens_per_doc: %d; want at least 1", *tokens)
		}
		maxTokens = *tokens
	}
	return maxChunks, maxTokens, nil
}

// cohereRerank answers Cohere's rerank, v1 or v2 (version "1" or "2").
func (s *Server) cohereRerank(version string) handler {
	return func(r *http.Request) (any, string, error) {
		var req RerankRequest
		if err := decode(r, &req); err != nil {
			return nil, req.Model, err
		}
		if version == "1" && req.MaxTokensPerDoc != nil {
			return nil, req.Model, badRequest(CodeUnknownField, "max_tokens_per_doc is a field of /v2/rerank; /v1/rerank has max_chunks_per_doc")
		}
		for _, f := range req.RankFields {
			if f != "text" {
				return nil, req.Model, badRequest(CodeInvalidRequest, "rank_fields: %q; as2 ranks a document's \"text\" only", f)
			}
		}
		chunks, tokens, err := caps(req.MaxChunksPerDoc, req.MaxTokensPerDoc)
		if err != nil {
			return nil, req.Model, err
		}
		ranked, name, cal, err := s.rankDocuments(r, rerankArgs{req.Model, req.Query, req.Documents, req.TopN, chunks, tokens}, "documents")
		if err != nil {
			return nil, name, err
		}
		resp := RerankResponse{ID: rand.Text(), Model: name, Results: make([]RerankResult, len(ranked))}
		resp.Meta.APIVersion.Version = version
		for k, d := range ranked {
			res := RerankResult{Index: d.Index, Score: scoreJSON(d.Score), RelevanceScore: relevance(d.Score, cal)}
			if req.ReturnDocuments {
				res.Document = &DocumentText{Text: req.Documents[d.Index]}
			}
			res.Passage, res.Sentence, res.Truncated = spans(d)
			if res.Truncated {
				resp.Meta.Warnings = append(resp.Meta.Warnings, truncation(d))
			}
			resp.Results[k] = res
		}
		return resp, name, nil
	}
}

// relevance is a score as relevance_score: the calibrated probability
// when there is a calibration, else the score; null for an unscored text.
func relevance(score float64, cal *trigger.Calibration) *float64 {
	if cal == nil || math.IsInf(score, -1) {
		return scoreJSON(score)
	}
	p := cal.Prob(score)
	return &p
}

// spans are a ranked document's best passage and, for a sentence-level
// ranker, the best sentence within it (nil for a document read whole).
func spans(d passage.Document) (psg, sentence *Span, truncated bool) {
	if b := d.Best(); b != nil {
		psg = &Span{b.Text, b.Start, b.End}
		if b.Sentence != nil {
			sentence = &Span{b.Sentence.Text, b.Sentence.Start, b.Sentence.End}
		}
	}
	return psg, sentence, d.Truncated()
}

func truncation(d passage.Document) string {
	return fmt.Sprintf("document %d: %d passages, only the first %d scored (max_chunks_per_doc, max_tokens_per_doc)", d.Index, d.Total, d.Scored())
}

// TEIRequest is the body of POST /rerank, text-embeddings-inference's
// rerank. Truncate true scores a long text's first passage only (TEI cuts
// it to the model's input); otherwise its passages are scored, at most
// DefaultMaxChunks, and a text cut by that says "truncated". Model is
// as2's (TEI serves one model): the server's default when empty.
type TEIRequest struct {
	Model               string   `json:"model,omitempty"`
	Query               string   `json:"query"`
	Texts               []string `json:"texts"`
	RawScores           bool     `json:"raw_scores,omitempty"`
	ReturnText          bool     `json:"return_text,omitempty"`
	Truncate            bool     `json:"truncate,omitempty"`
	TruncationDirection string   `json:"truncation_direction,omitempty"`
}

// TEIResult is one text of TEI's response, a JSON array best first.
// Score is the calibrated probability when the model has a calibration
// (TEI's default, a probability) unless raw_scores asks for the model's
// score.
type TEIResult struct {
	Index     int      `json:"index"`
	Score     *float64 `json:"score"`
	Text      *string  `json:"text,omitempty"`
	Passage   *Span    `json:"passage,omitempty"`
	Sentence  *Span    `json:"sentence,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
}

func (s *Server) teiRerank(r *http.Request) (any, string, error) {
	var req TEIRequest
	if err := decode(r, &req); err != nil {
		return nil, req.Model, err
	}
	switch req.TruncationDirection {
	case "", "Right", "right":
	default:
		return nil, req.Model, badRequest(CodeInvalidRequest, "truncation_direction: %q; as2 keeps a text's beginning (Right)", req.TruncationDirection)
	}
	chunks := DefaultMaxChunks
	if req.Truncate {
		chunks = 1
	}
	ranked, name, cal, err := s.rankDocuments(r, rerankArgs{req.Model, req.Query, req.Texts, nil, chunks, 0}, "texts")
	if err != nil {
		return nil, name, err
	}
	if req.RawScores {
		cal = nil
	}
	out := make([]TEIResult, len(ranked))
	for k, d := range ranked {
		out[k] = TEIResult{Index: d.Index, Score: relevance(d.Score, cal)}
		if req.ReturnText {
			out[k].Text = &req.Texts[d.Index]
		}
		out[k].Passage, out[k].Sentence, out[k].Truncated = spans(d)
	}
	return out, name, nil
}

// passageOf is the passage that holds sentence i of a document, for
// /v1/select: the one where it sits most central (passage.Central).
func passageOf(ps []text.Passage, i int) *Span {
	k := passage.Central(ps, i)
	if k < 0 {
		return nil
	}
	return &Span{ps[k].Text, ps[k].Start, ps[k].End}
}
