package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDecodeConfig(t *testing.T) {
	for _, c := range []struct {
		name, in, err string
		check         func(*Config) bool
	}{
		{"empty", "", "", func(c *Config) bool { return c.Addr == "" && c.Rankers == nil }},
		{"full", "addr: 127.0.0.1:9\nrankers: {bm25: bm25}\nlimits: {timeout: 2s, queue: 3}\ndrain: 1s\n", "",
			func(c *Config) bool {
				return c.Addr == "127.0.0.1:9" && c.Rankers["bm25"] == "bm25" && c.Limits.Timeout == 2*time.Second &&
					c.Limits.Queue == 3 && c.Limits.Set("queue") && !c.Limits.Set("max-body") && c.Drain == time.Second
			}},
		{"unknown field", "adress: x\n", "field adress not found", nil},
		{"bad duration", "drain: soon\n", "soon", nil},
		{"wrong type", "rankers: [a, b]\n", "cannot unmarshal", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := DecodeConfig(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil || !c.check(cfg) {
				t.Fatalf("%+v, %v", cfg, err)
			}
		})
	}
}

// ReadConfig's errors name the file.
func TestReadConfigNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(path, []byte("nope: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadConfig(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v does not name %s", err, path)
	}
}

// FuzzDecodeConfig: any file is read or refused with an error, never a panic.
func FuzzDecodeConfig(f *testing.F) {
	f.Add("addr: 127.0.0.1:8080\nrankers: {cosinet: m.as2, bm25: bm25}\ncascades: {fast: \"bm25:100,cosinet=m.as2:10\"}\n")
	f.Add("limits: {max_body: 4194304, timeout: 10s, concurrent: 2}\ndrain: 5s\ngrace: 30s\n")
	f.Add("hybrids: {faq: \"relative:a*2,b\"}\ndefault: x\n")
	f.Fuzz(func(t *testing.T, in string) {
		_, _ = DecodeConfig(strings.NewReader(in))
	})
}
