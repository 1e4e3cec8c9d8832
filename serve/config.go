package serve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the YAML form of as2 serve's flags (a file for --config):
//
//	addr: 127.0.0.1:8080
//	rankers: {cosinet: m.as2, bm25: bm25}
//	cascades: {fast: "bm25:100,cosinet=m.as2:10"}
//	calibrations: {cosinet: cal.json}
//	indexes: {faq-bm25: faq-bm25.idx, faq-use: faq-use.idx}
//	hybrids: {faq: "relative:faq-bm25*2,faq-use"}
//	default: cosinet
//	limits: {max_body: 4194304, max_documents: 1000, max_text: 65536, max_tokens: 100000, timeout: 10s, concurrent: 2, queue: 8}
//	drain: 5s
//	grace: 30s
type Config struct {
	Addr         string            `yaml:"addr"`
	Rankers      map[string]string `yaml:"rankers"`
	Cascades     map[string]string `yaml:"cascades"`
	Calibrations map[string]string `yaml:"calibrations"`
	Indexes      map[string]string `yaml:"indexes"` // name -> index file (as2 index build)
	Hybrids      map[string]string `yaml:"hybrids"` // name -> fusion of indexes (ParseHybrid)
	Default      string            `yaml:"default"`
	Limits       ConfigLimits      `yaml:"limits"`
	Drain        time.Duration     `yaml:"drain"`
	Grace        time.Duration     `yaml:"grace"`
}

// ConfigLimits are the limits a Config sets (zero: not set).
type ConfigLimits struct {
	MaxBody      int64         `yaml:"max_body"`
	MaxDocuments int           `yaml:"max_documents"`
	MaxText      int           `yaml:"max_text"`
	Timeout      time.Duration `yaml:"timeout"`
	MaxTokens    int           `yaml:"max_tokens"`
	Concurrent   int           `yaml:"concurrent"`
	Queue        int           `yaml:"queue"`
}

// Set reports whether the file gives the limit behind an as2 serve flag.
func (l ConfigLimits) Set(flag string) bool {
	switch flag {
	case "max-body":
		return l.MaxBody != 0
	case "max-documents":
		return l.MaxDocuments != 0
	case "max-text":
		return l.MaxText != 0
	case "timeout":
		return l.Timeout != 0
	case "max-tokens":
		return l.MaxTokens != 0
	case "concurrent":
		return l.Concurrent != 0
	case "queue":
		return l.Queue != 0
	}
	return false
}

// Pairs turns a name -> spec map into NAME=SPEC flag values, in name order.
func Pairs(m map[string]string) []string {
	var out []string
	for name, spec := range m {
		out = append(out, name+"="+spec)
	}
	sort.Strings(out)
	return out
}

// ReadConfig reads a configuration file, refusing unknown fields.
func ReadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg, err := DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// DecodeConfig reads a configuration from r, refusing unknown fields; an
// empty one sets nothing.
func DecodeConfig(r io.Reader) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &cfg, nil
}
