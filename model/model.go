package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/google/renameio/v2"

	"github.com/as2/as2/encoder"
	"github.com/as2/as2/nn"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/safetensors"
	"github.com/as2/as2/version"
)

// FormatVersion is the model-file format this build writes and the newest
// it reads. Bump it when a change makes old readers misread new files.
// Format 3 adds the integrity entry (IntegrityKey): SHA-256 digests of the
// configuration and of every tensor, which the reader verifies, so that a
// flipped bit anywhere in the file is refused. Format 2 records the encoder
// generally (Config.Encoder); format 1 files, whose static vectors were
// described by top-level fields, are converted on reading. Files of
// formats 1 and 2 still load, without the digest check (they have none).
const FormatVersion = 3

// MetadataKey is the safetensors metadata key holding the JSON Config.
const MetadataKey = "as2"

// IntegrityKey is the safetensors metadata key holding the JSON
// Integrity (format 3 on). It lives beside the configuration rather than
// in it, so that its digest covers the configuration byte for byte.
const IntegrityKey = "as2_integrity"

// Integrity holds the digests by which a reader detects a corrupt file.
type Integrity struct {
	// Config is the SHA-256 of the configuration's JSON (MetadataKey), in
	// hex: it covers the format, the hyperparameters, the encoder and the
	// training record.
	Config string `json:"config_sha256"`
	// Tensors maps each tensor's name to the SHA-256 of its name, shape and
	// float32 values (little-endian), in hex.
	Tensors map[string]string `json:"tensors_sha256"`
}

// Config describes a model file.
type Config struct {
	Format       int             `json:"format"`          // FormatVersion of the writer
	AS2Version   string          `json:"as2_version"`     // as2 release that wrote the file
	Architecture string          `json:"architecture"`    // e.g. "cosinet"
	Encoder      encoder.Spec    `json:"encoder"`         // tokenizer and token states
	Params       int             `json:"params"`          // trainable parameters
	Hyper        json.RawMessage `json:"hyperparameters"` // architecture-specific
	Training     json.RawMessage `json:"training,omitempty"`
}

// configV1 holds the fields by which format 1 described its static word
// vectors, before the encoder had a spec of its own.
type configV1 struct {
	Tokenizer  string   `json:"tokenizer"`
	Embeddings string   `json:"embeddings"`
	Vocabulary []string `json:"vocabulary"`
}

// Model is a trained ranker that can be saved.
type Model interface {
	rank.Ranker
	// Config returns the model's configuration (Format and AS2Version are
	// filled in by Write).
	Config() Config
	// Tensors returns every tensor needed to rebuild the model.
	Tensors() []safetensors.Tensor
}

// Write writes m to w.
func Write(w io.Writer, m Model) error { return write(w, m, false) }

// write writes m to w, its matrices as int8 when int8 (see WriteInt8).
func write(w io.Writer, m Model, int8 bool) error {
	cfg := m.Config()
	cfg.Format = FormatVersion
	cfg.AS2Version = version.String()
	js, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	tensors := m.Tensors()
	sum := sha256.Sum256(js)
	in := Integrity{Config: hex.EncodeToString(sum[:]), Tensors: make(map[string]string, len(tensors))}
	meta := map[string]string{MetadataKey: string(js)}
	stored := make([]safetensors.Tensor, 0, len(tensors))
	var quantized []string
	for _, t := range tensors {
		if !int8 || !quantizable(t) {
			in.Tensors[t.Name] = tensorDigest(t)
			stored = append(stored, t)
			continue
		}
		q, scales, deq := quantizeRows(t)
		// The digest covers the values a reader will use.
		in.Tensors[t.Name] = tensorDigest(safetensors.Tensor{Name: t.Name, Shape: t.Shape, Data: deq})
		stored = append(stored, q, scales)
		quantized = append(quantized, t.Name)
	}
	if int8 {
		list, err := json.Marshal(quantized)
		if err != nil {
			return err
		}
		meta[Int8Key] = string(list)
	}
	ijs, err := json.Marshal(in)
	if err != nil {
		return err
	}
	meta[IntegrityKey] = string(ijs)
	return safetensors.Write(w, stored, meta)
}

// tensorDigest is the SHA-256 of t's name, shape and values, in hex.
func tensorDigest(t safetensors.Tensor) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %v\n", t.Name, t.Shape)
	buf := make([]byte, 0, 4096)
	for i, v := range t.Data {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		if len(buf) == cap(buf) || i == len(t.Data)-1 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// verify checks a file's digests (the JSON ijs, IntegrityKey) against its
// configuration js and its tensors.
func verify(ijs, js string, tensors []safetensors.Tensor) error {
	// encoding/json matches keys regardless of case: check them exactly,
	// so that no flipped bit goes unnoticed.
	var keys map[string]json.RawMessage
	var in Integrity
	if json.Unmarshal([]byte(ijs), &keys) != nil || len(keys) != 2 || keys["config_sha256"] == nil || keys["tensors_sha256"] == nil ||
		json.Unmarshal([]byte(ijs), &in) != nil {
		return errors.New("integrity digests unreadable: the file is corrupt")
	}
	sum := sha256.Sum256([]byte(js))
	if hex.EncodeToString(sum[:]) != in.Config {
		return errors.New("configuration fails its SHA-256 check: the file is corrupt")
	}
	if len(in.Tensors) != len(tensors) {
		return fmt.Errorf("%d tensor digests for %d tensors: the file is corrupt", len(in.Tensors), len(tensors))
	}
	for _, t := range tensors {
		want, ok := in.Tensors[t.Name]
		if !ok {
			return fmt.Errorf("weights: tensor %q has no digest: the file is corrupt", t.Name)
		}
		if tensorDigest(t) != want {
			return fmt.Errorf("weights: tensor %q fails its SHA-256 check: the file is corrupt", t.Name)
		}
	}
	return nil
}

// Read reads a model from r.
func Read(r io.Reader) (Model, error) {
	tensors, meta, err := safetensors.Read(r)
	if err != nil {
		return nil, err
	}
	if tensors, err = dequantize(tensors, meta); err != nil {
		return nil, err
	}
	js, ok := meta[MetadataKey]
	if !ok {
		return nil, errors.New("not an as2 model: the safetensors metadata has no \"as2\" configuration")
	}
	cfg, err := parseConfig(js)
	if err != nil {
		return nil, err
	}
	a, err := Lookup(cfg.Architecture)
	if err != nil {
		return nil, fmt.Errorf("model %w", err)
	}
	// A file with digests is checked whatever its format says: a flipped
	// bit could turn format 3 into 2. The digests are computed before
	// decoding, which may transform tensors in place (normalising rows),
	// and reported after it, so that a file with a plainer fault gets the
	// plainer error.
	ijs, signed := meta[IntegrityKey]
	var integrity error
	if signed {
		integrity = verify(ijs, js, tensors)
	}
	m, err := a.decode(cfg, tensors)
	if err != nil {
		return nil, fmt.Errorf("%s model: %w", cfg.Architecture, err)
	}
	if cfg.Format >= 3 && !signed {
		return nil, fmt.Errorf("%s model: format %d file without integrity digests: the file is corrupt", cfg.Architecture, cfg.Format)
	}
	if integrity != nil {
		return nil, fmt.Errorf("%s model: %w", cfg.Architecture, integrity)
	}
	// Every format records the parameter count; a file whose count
	// disagrees with the parameters it loads is not what it says.
	if t, ok := m.(interface{ Params() *nn.Params[float32] }); ok && t.Params().Count() != cfg.Params {
		return nil, fmt.Errorf("%s model: the configuration says %d parameters, the file has %d: the file is corrupt", cfg.Architecture, cfg.Params, t.Params().Count())
	}
	return m, nil
}

// parseConfig reads a file's configuration, converting format 1.
func parseConfig(js string) (Config, error) {
	var cfg Config
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		return cfg, fmt.Errorf("model configuration: %w", err)
	}
	if cfg.Format < 1 || cfg.Format > FormatVersion {
		return cfg, fmt.Errorf("model file format %d was written by as2 %s; this as2 (%s) reads formats 1 to %d: upgrade as2", cfg.Format, cfg.AS2Version, version.String(), FormatVersion)
	}
	if cfg.Format == 1 {
		var v1 configV1
		if err := json.Unmarshal([]byte(js), &v1); err != nil {
			return cfg, fmt.Errorf("model configuration (format 1): %w", err)
		}
		cfg.Encoder = encoder.Spec{Kind: encoder.StaticKind, Tokenizer: v1.Tokenizer, Identity: v1.Embeddings, Vocabulary: v1.Vocabulary}
	}
	return cfg, nil
}

// Save writes m to path atomically: the file appears whole or not at all.
func Save(path string, m Model) error { return save(path, m, false) }

// SaveInt8 writes m to path as WriteInt8 does, atomically.
func SaveInt8(path string, m Model) error { return save(path, m, true) }

func save(path string, m Model, int8 bool) error {
	var buf bytes.Buffer
	if err := write(&buf, m, int8); err != nil {
		return err
	}
	return renameio.WriteFile(path, buf.Bytes(), 0o644)
}

// Load reads the model file at path.
func Load(path string) (Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
