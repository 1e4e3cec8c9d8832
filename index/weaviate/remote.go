package weaviate

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/as2/as2/index"
)

// WriteTo implements index.Index: x's Remote record, in index's checked
// format (kind "remote"; index.ReadRemote reads it, OpenRemote opens it).
// The vectors stay in Weaviate.
func (x *Index) WriteTo(w io.Writer) (int64, error) { return x.Remote().WriteTo(w) }

// OpenRemote opens the class r records, contacting the server (without
// creating the class), and says so if it no longer holds r.Count objects.
// opts gives the client settings (Ef, BatchSize, Client).
func OpenRemote(ctx context.Context, r *index.Remote, opts Options) (*Index, error) {
	y, err := FromRemote(r, opts)
	if err != nil {
		return nil, err
	}
	x, err := Open(ctx, Options{URL: y.url, Class: y.class, Dim: y.dim, Ef: opts.Ef, BatchSize: opts.BatchSize, Client: opts.Client})
	if err != nil {
		return nil, err
	}
	if x.Len() != r.Count {
		return nil, fmt.Errorf("weaviate at %s: class %s holds %d objects, the index was built with %d (rebuild it)", x.url, x.class, x.Len(), r.Count)
	}
	return x, nil
}

// Remote returns x's record for an index.Bundle: the answers live in
// Weaviate, at x's URL and class.
func (x *Index) Remote() *index.Remote {
	return &index.Remote{Engine: Kind, Count: x.Len(),
		Params: map[string]string{"url": x.url, "class": x.class, "dim": strconv.Itoa(x.dim)}}
}

// FromRemote returns the Index r records, without contacting the server:
// searches do, so that a server down when as2 serve starts fails that
// index's requests, not the start. opts gives the client settings (Ef,
// BatchSize, Client); r gives the rest.
func FromRemote(r *index.Remote, opts Options) (*Index, error) {
	if r.Engine != Kind {
		return nil, fmt.Errorf("weaviate: a remote index of engine %q", r.Engine)
	}
	for k := range r.Params {
		if k != "url" && k != "class" && k != "dim" {
			return nil, fmt.Errorf("weaviate: the index records an unknown parameter %q", k)
		}
	}
	dim, err := strconv.Atoi(r.Params["dim"])
	if err != nil {
		return nil, fmt.Errorf("weaviate: the index records dimension %q", r.Params["dim"])
	}
	opts.URL, opts.Class, opts.Dim, opts.Create = r.Params["url"], r.Params["class"], dim, false
	if opts.URL == "" || opts.Class == "" {
		return nil, fmt.Errorf("weaviate: the index records no url or class (%v)", r.Params)
	}
	x, err := newIndex(opts)
	if err != nil {
		return nil, err
	}
	x.n.Store(int64(r.Count))
	return x, nil
}
