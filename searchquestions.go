package as2

import (
	"context"
	"fmt"
	"io"
)

// SearchSettings are how Index.SearchQuestions searches and writes, as as2
// index search's flags give them.
type SearchSettings struct {
	Top      int    // hits per question, at least 1
	Format   string // HitsTSV or HitsJSON
	EfSearch int    // hnsw index: candidates a search keeps (0: the index's own)
	Rescore  int    // binary index: nearest codes rescored (0: the index's own)
}

// Check reports the first bad setting, named as the flag is ("top 0: want
// at least 1").
func (s SearchSettings) Check() error {
	switch {
	case s.Top < 1:
		return fmt.Errorf("top %d: want at least 1", s.Top)
	case s.Format != HitsTSV && s.Format != HitsJSON:
		return fmt.Errorf("format %q: want %s or %s", s.Format, HitsTSV, HitsJSON)
	case s.EfSearch < 0:
		return fmt.Errorf("ef-search %d: want 0 (the index's own) or more", s.EfSearch)
	case s.Rescore < 0:
		return fmt.Errorf("rescore %d: want 0 (the index's own) or more", s.Rescore)
	}
	return nil
}

// SearchQuestions writes x's s.Top hits for each question to w in
// s.Format (HitWriter): for question, or, when r is not nil, for each
// line of r (ScanQuestions: name names r in errors), with its line number.
// noHits, if not nil, hears of each question without a hit in a tsv
// output, where it would leave no row (json writes an empty list).
func (x *Index) SearchQuestions(ctx context.Context, w io.Writer, s SearchSettings, question string, r io.Reader, name string, noHits func(question string)) error {
	hw, err := NewHitWriter(w, s.Format, r != nil)
	if err != nil {
		return err
	}
	ask := func(n int, q string) error {
		hits, err := x.Search(ctx, q, s.Top)
		if err != nil {
			return err
		}
		if len(hits) == 0 && !hw.json && noHits != nil {
			noHits(q)
		}
		return hw.Write(n, q, hits)
	}
	if r == nil {
		return ask(1, question)
	}
	return ScanQuestions(ctx, r, name, ask)
}
