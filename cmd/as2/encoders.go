package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/as2/as2/embed"
	"github.com/as2/as2/encoder"
	"github.com/as2/as2/encoder/bert"
	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
)

// openEncoder builds the encoder --encoder names, or the architecture's
// default one: static word vectors (--embeddings), USE-Lite or a Hugging
// Face BERT checkpoint.
func (t *trainCmd) openEncoder(stderr io.Writer) (encoder.Encoder[float32], error) {
	name := t.encoder
	if name == "" {
		a, err := model.Lookup(t.arch)
		if err != nil {
			return nil, fmt.Errorf("--arch: %w", err)
		}
		name = a.DefaultEncoder()
	}
	if name != "" && name != encoder.StaticKind && t.embeddings != "" {
		return nil, fmt.Errorf("--embeddings is for static word vectors, not --encoder %s", name)
	}
	start := time.Now()
	enc, err := openNamedEncoder(name, t.embeddings, t.embedFmt)
	if err != nil {
		if name == "" || name == encoder.StaticKind {
			return nil, fmt.Errorf("--embeddings: %w", err)
		}
		return nil, fmt.Errorf("--encoder: %w", err)
	}
	spec := enc.Spec()
	fmt.Fprintf(stderr, "encoder: %s, %d-d token states, %d vocabulary entries (%.1fs)\n", spec.Kind, spec.Dim, len(spec.Vocabulary), time.Since(start).Seconds())
	return enc, nil
}

// openNamedEncoder opens "static" (or ""), "use-lite[:PATH]" or "hf:DIR".
func openNamedEncoder(name, embeddings, embedFmt string) (encoder.Encoder[float32], error) {
	switch {
	case name == "" || name == encoder.StaticKind:
		if embeddings == "" {
			embeddings = defaultEmbeddings()
		}
		vecs, err := embed.Load(embeddings, embedFmt)
		if err != nil {
			return nil, err
		}
		return encoder.NewStatic[float32](vecs)
	case name == uselite.Kind || strings.HasPrefix(name, uselite.Kind+":"):
		path := strings.TrimPrefix(strings.TrimPrefix(name, uselite.Kind), ":")
		if path == "" {
			path = uselite.DefaultPath()
		}
		return uselite.LoadEncoder(path)
	case strings.HasPrefix(name, "hf:"):
		return bert.LoadEncoder(strings.TrimPrefix(name, "hf:"))
	}
	return nil, fmt.Errorf("%q: want static, use-lite[:PATH] or hf:DIR", name)
}
