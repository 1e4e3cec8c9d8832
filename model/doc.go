// Package model holds the neural rankers' shared machinery: the registry
// of architectures, training objectives as values, the Network that gives
// an architecture its Score and Loss from one forward pass, and model
// files.
//
// # Architectures
//
// Each architecture package (model/cosinet, model/compagg) registers an
// Arch: its name, its hyperparameters (as2's recipe and the paper's), the
// flags that set them, the training it recommends, and its constructor.
// Decoding model files follows from these. Commands look architectures up
// by name (Lookup) and hold no per-architecture code; the binary links the
// architectures that package model/all imports.
//
// # Model files
//
// A model file is one safetensors file (package safetensors): the weights
// as float32 tensors, and in its metadata, under the key "as2", a JSON
// Config naming the architecture, its hyperparameters, the encoder (its
// kind, tokenizer and weights' identity: see package encoder), and the as2
// version and file-format version that wrote it. Read looks the
// architecture up, checks compatibility, and returns a Model, which is a
// rank.Ranker. Files are written atomically.
package model
