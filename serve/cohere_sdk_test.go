package serve

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCohereSDK calls the server with Cohere's SDK (npm cohere-ai 8.1.0),
// its v1 and v2 clients, and checks what the SDK parsed. It skips without
// node or without AS2_COHERE_SDK, the node_modules folder holding the
// package:
//
//	npm install --prefix /tmp/cohere-sdk cohere-ai@8.1.0
//	AS2_COHERE_SDK=/tmp/cohere-sdk/node_modules go test ./serve -run CohereSDK
func TestCohereSDK(t *testing.T) {
	mods := os.Getenv("AS2_COHERE_SDK")
	if mods == "" {
		t.Skip("AS2_COHERE_SDK is not set (the node_modules holding cohere-ai)")
	}
	if _, err := os.Stat(filepath.Join(mods, "cohere-ai", "package.json")); err != nil {
		t.Skipf("no cohere-ai package in AS2_COHERE_SDK: %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	hs := httptest.NewServer(schemaServer(t))
	defer hs.Close()
	script, err := filepath.Abs("testdata/cohere-sdk.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), node, script, hs.URL, "calibrated")
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the SDK failed: %v\n%s", err, stderr)
	}
	type result struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevanceScore"`
		Text           *string `json:"text"`
	}
	type response struct {
		ID      string   `json:"id"`
		Version string   `json:"version"`
		Results []result `json:"results"`
	}
	var got struct{ V1, V2 response }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the script's output %q: %v", out, err)
	}
	t.Logf("Cohere SDK: %s", out)
	for name, r := range map[string]response{"v1": got.V1, "v2": got.V2} {
		if r.ID == "" || r.Version != name[1:] || len(r.Results) != 2 || r.Results[0].Index != 1 {
			t.Errorf("%s: %+v: want an id, version %s and 2 results, document 1 first", name, r, name[1:])
			continue
		}
		for i, x := range r.Results {
			if x.RelevanceScore < 0 || x.RelevanceScore > 1 {
				t.Errorf("%s: result %d: relevanceScore %v outside [0, 1]", name, i, x.RelevanceScore)
			}
		}
	}
	if d := got.V1.Results; len(d) > 0 && (d[0].Text == nil || *d[0].Text != "Shakespeare wrote Hamlet.") {
		t.Errorf("v1: results[0].document.text = %v, want the document", d[0].Text)
	}
}
