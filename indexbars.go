package as2

import "github.com/as2/as2/index"

// IndexBars shows BuildIndex's progress over n answers as bars (bars
// starts one; nil shows nothing): "encoding answers", then, for the kinds
// whose insertions take a while of their own (hnsw graphs, Weaviate),
// "indexing answers", which takes the first one's place. Pass the option
// to BuildIndex and call end once it returns.
func IndexBars(kind string, n int, bars func(what string, total int) (step func(int), done func())) (opt IndexOption, end func()) {
	if bars == nil {
		return WithIndexProgress(nil, nil), func() {}
	}
	encode, encoded := bars("encoding answers", n)
	insert, inserted := func(int) {}, func() {}
	if kind == index.HNSWKind || kind == WeaviateKind {
		insert, inserted = bars("indexing answers", n)
	}
	encoding := true
	endEncoding := func() {
		if encoding {
			encoded()
			encoding = false
		}
	}
	inserting := func(done int) {
		endEncoding()
		insert(done)
	}
	return WithIndexProgress(encode, inserting), func() {
		endEncoding()
		inserted()
	}
}
