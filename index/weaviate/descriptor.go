package weaviate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/as2/as2/index"
)

// Descriptor says where an Index's vectors live: what WriteTo writes in
// place of the vectors, which stay in Weaviate.
type Descriptor struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	URL     string `json:"url"`
	Class   string `json:"class"`
	Dim     int    `json:"dim"`
	// Count is the objects stored when it was written, to notice a class
	// emptied or rebuilt since.
	Count int `json:"count"`
}

const descriptorVersion = 1

// maxDescriptor bounds a descriptor read.
const maxDescriptor = 1 << 16

// Descriptor returns x's descriptor.
func (x *Index) Descriptor() Descriptor {
	return Descriptor{Kind: Kind, Version: descriptorVersion, URL: x.url, Class: x.class, Dim: x.dim, Count: x.Len()}
}

// WriteTo implements index.Index: x's Descriptor as one line of JSON.
func (x *Index) WriteTo(w io.Writer) (int64, error) {
	b, err := json.Marshal(x.Descriptor())
	if err != nil {
		return 0, fmt.Errorf("weaviate: %w", err)
	}
	n, err := w.Write(append(b, '\n'))
	return int64(n), err
}

// ReadDescriptor reads what WriteTo wrote, refusing another kind, a later
// version, or fields Open would refuse.
func ReadDescriptor(r io.Reader) (Descriptor, error) {
	var d Descriptor
	dec := json.NewDecoder(io.LimitReader(r, maxDescriptor))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Descriptor{}, fmt.Errorf("reading a weaviate descriptor: %w", err)
	}
	switch {
	case d.Kind != Kind:
		return Descriptor{}, fmt.Errorf("reading a weaviate descriptor: kind %q", d.Kind)
	case d.Version < 1 || d.Version > descriptorVersion:
		return Descriptor{}, fmt.Errorf("reading a weaviate descriptor: version %d: this build reads versions 1 to %d", d.Version, descriptorVersion)
	}
	if _, err := newIndex(d.Options()); err != nil {
		return Descriptor{}, fmt.Errorf("reading a weaviate descriptor: %w", err)
	}
	return d, nil
}

// Options are the options that open d's class again (without creating it).
func (d Descriptor) Options() Options {
	return Options{URL: d.URL, Class: d.Class, Dim: d.Dim}
}

// Open opens d's class, and says so if it no longer holds d.Count objects.
func (d Descriptor) Open(ctx context.Context, opts Options) (*Index, error) {
	o := d.Options()
	o.Ef, o.BatchSize, o.Client = opts.Ef, opts.BatchSize, opts.Client
	x, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if x.Len() != d.Count {
		return nil, fmt.Errorf("weaviate at %s: class %s holds %d objects, the index was built with %d (rebuild it)", x.url, x.class, x.Len(), d.Count)
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
