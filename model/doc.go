// Package model holds the neural rankers' shared machinery: the registry
// of architectures, training objectives as values, the Network that gives
// an architecture its Score and Loss from one forward pass, and model
// files.
//
// # Architectures
//
// Each architecture package (e.g. model/cosinet, model/compagg) registers
// an Arch: its name, its hyperparameters as a typed struct (as2's values
// and the paper's), the training it recommends, and its constructor.
// Decoding model files follows from these. Commands look architectures up
// by name (Lookup) and hold no per-architecture code; the binary links the
// architectures that package model/all imports.
//
// # Recipes
//
// A Recipe is how to build and train a model, as values: the architecture,
// a pointer to its hyperparameters' struct, the token encoder and the
// training settings (TrainingSpec). The registry gives each architecture's
// recipe by name (LookupRecipe: "cosinet", "cosinet-paper") or for an
// objective (DefaultRecipe); a recipe reads and writes as JSON (ReadRecipe,
// MarshalIndent), its fields left out taking the registered values, and an
// architecture builds the untrained model a recipe describes (New).
// Recipe.Set sets a field by its JSON path ("hyperparameters.rnn"), and
// Settings lists the fields a command line sets, each with its flag name,
// built from the structs' tags: a new hyperparameter needs a struct field
// and nothing else. A field tagged `recipe:"-"` (the encoder kind a model
// file records among its hyperparameters) is not a recipe's: the recipe
// names its encoder once, at its top. Package train resolves a recipe for
// a run (train.Source, train.Resolve).
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
