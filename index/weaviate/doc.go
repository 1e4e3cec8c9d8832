// Package weaviate stores and searches as2's answer vectors in a Weaviate
// server, for pools that outgrow one process or must be shared between
// several (issue 12: an adapter to an existing distributed vector
// engine). An *Index implements index.Index[[]float32, []float32], so a
// dual encoder's vectors go to Weaviate instead of index.Flat with no
// other change.
//
// It speaks Weaviate's REST and GraphQL API over net/http, with no client
// library: the few calls it needs (readiness, schema, batch insert,
// nearVector search, count, delete) do not justify a dependency tree.
//
//   - A collection (class) is created with "vectorizer": "none", since as2
//     encodes, and distance "dot", since Weaviate's dot distance is the
//     negated inner product: Search's scores (-distance) are Flat's.
//   - Each answer is an object whose answerId property is the as2 id and
//     whose UUID is a UUIDv5 of it, so adding an id again replaces its
//     vector instead of duplicating it.
//   - Search is a GraphQL Get with nearVector and limit k. Weaviate's
//     documentation marks GraphQL deprecated: self-hosted servers keep it
//     until at least May 2027, Weaviate Cloud switches it off then (new
//     cloud clusters already start without it); the REST search API would
//     replace this one call.
//   - Open does not learn a class's dimension (the schema does not hold
//     it): a mismatch shows as Weaviate's error at the first Add or Search.
//
// Weaviate's default vector index is HNSW, approximate: Options.Ef raises
// its search breadth when recall against Flat matters more than latency.
//
// Errors name the server: an unreachable one reads "weaviate at URL:
// connection refused" and wraps ErrUnavailable (as does a 503), so that a
// server can answer 503 for this index only; HTTP errors carry the status
// and Weaviate's own message, and a batch whose objects failed reports
// them.
//
// The vectors live in Weaviate, so nothing as2 writes holds them: Remote
// gives an index.Bundle its record (an index.Remote: URL, class,
// dimension, count), which FromRemote turns back into an Index without a
// request (OpenRemote checks it against the server); WriteTo writes the
// same record for a stand-alone file.
//
// scripts/weaviate.sh starts a local server; the integration test runs
// when AS2_WEAVIATE_URL names a ready one.
package weaviate
