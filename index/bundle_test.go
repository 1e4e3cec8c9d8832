package index

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/as2/as2/rank"
)

func TestBundle(t *testing.T) {
	aids, vecs := randomVecs(30, 8, 31)
	texts := make([]string, len(aids))
	for i := range texts {
		texts[i] = "answer " + aids[i]
	}
	flat, _ := NewFlat(8)
	hn, _ := NewHNSW(8, HNSWOptions{})
	if err := errors.Join(flat.Add(aids, vecs), hn.Add(aids, vecs)); err != nil {
		t.Fatal(err)
	}
	for _, x := range []Stored{flat, hn} {
		b := &Bundle{Encoder: map[string]string{"retriever": "model", "sha256": "ab12"}, IDs: aids, Texts: texts, Index: x}
		var buf bytes.Buffer
		if _, err := b.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadBundle(&buf)
		if err != nil {
			t.Fatalf("%s: %v", x.Kind(), err)
		}
		if back.Index.Kind() != x.Kind() || !slices.Equal(back.Texts, texts) || back.Encoder["sha256"] != "ab12" {
			t.Errorf("%s: read back %+v", x.Kind(), back)
		}
		vx := back.Index.(Index[[]float32, []float32])
		got, _ := vx.Search(context.Background(), vecs[3], 1)
		if len(got) != 1 || got[0].ID != aids[3] {
			t.Errorf("%s: %v", x.Kind(), got)
		}
	}
	remote := &Remote{Engine: "weaviate", Params: map[string]string{"url": "http://127.0.0.1:8079", "class": "As2Answer"}, Count: len(aids)}
	var buf bytes.Buffer
	if _, err := (&Bundle{IDs: aids, Texts: texts, Index: remote}).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadBundle(&buf); err != nil || back.Index.Kind() != RemoteKind || back.Index.(*Remote).Params["class"] != "As2Answer" || back.Index.Len() != len(aids) {
		t.Errorf("remote: read back %+v, %v", back, err)
	}
	if _, err := (&Bundle{IDs: []string{"a"}, Texts: []string{"x"}, Index: &Remote{Count: 1}}).WriteTo(&bytes.Buffer{}); err == nil {
		t.Error("a remote index without an engine written")
	}
	if _, err := (&Bundle{IDs: []string{"a"}, Texts: []string{"x"}, Index: NewBM25(rank.DefaultOptions())}).WriteTo(&bytes.Buffer{}); err == nil ||
		!strings.Contains(err.Error(), "1 ids and 1 texts for 0 answers") {
		t.Errorf("a bundle whose index misses answers: %v", err)
	}
	data := written(t)[BundleKind]
	tests := []struct {
		name    string
		in      []byte
		want    string
		corrupt bool
	}{
		{"an index, not a bundle", written(t)[FlatKind], `the file holds a "flat" index, not a "bundle" one`, false},
		{"truncated", data[:len(data)-9], "reading an index bundle: corrupt index file: unexpected EOF", true},
		{"flipped text", flipAt(data, 60), "reading an index bundle: corrupt index file", true},
		{"unknown inner kind", replaceLast(data, "bm25", "ivf1"), `it holds a "ivf1" index, which this build does not read`, false},
	}
	for _, tc := range tests {
		_, err := ReadBundle(bytes.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrCorrupt) != tc.corrupt {
			t.Errorf("%s: %v, want %q (corrupt %v)", tc.name, err, tc.want, tc.corrupt)
		}
	}
}

func flipAt(b []byte, at int) []byte {
	b = slices.Clone(b)
	b[at] ^= 0x40
	return b
}

func replaceLast(b []byte, old, new string) []byte {
	b = slices.Clone(b)
	i := bytes.LastIndex(b, []byte(old))
	copy(b[i:], new)
	return b
}
