package download

import (
	"bytes"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Manifest lists the datasets Get can fetch.
type Manifest struct {
	Datasets []Dataset `json:"datasets"`
}

// Dataset is one name of `as2 data get`: the files that make up the folder
// as2's readers load for it.
type Dataset struct {
	// Name is what the command line calls it: wikiqa, trecqa, squad, glove.
	Name string `json:"name"`
	// Dir is the folder under the data directory that receives the files,
	// the one catalog.DefaultPath and the embeddings default look in.
	Dir string `json:"dir"`
	// Title says what the files are; Origin where they come from; Licence
	// the terms, in short (the files themselves carry the full text where
	// upstream ships one).
	Title   string `json:"title"`
	Origin  string `json:"origin"`
	Licence string `json:"licence"`
	Files   []File `json:"files"`
}

// File is one download. Exactly one of URL and NPM says where it comes
// from.
type File struct {
	// URL is the canonical public location, pinned (a commit, a version).
	URL string `json:"url,omitempty"`
	// NPM is an npm package spec pinned to an exact version,
	// NAME@VERSION or @SCOPE/NAME@VERSION: the file is the tarball that
	// `npm pack NPM` writes, fetched by the npm client from whatever
	// registry it is configured with (Options.Mirror does not apply).
	NPM string `json:"npm,omitempty"`
	// Path is where the file is written, slash-separated, relative to the
	// dataset's Dir. For an archive it is where the archive waits until it
	// is unpacked (it is deleted afterwards).
	Path string `json:"path"`
	// Size in bytes and SHA-256 (lowercase hex) of what URL serves, or of
	// the tarball npm pack writes.
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// ChecksumFrom says how SHA256 was established, so that a reader can
	// tell a checksum recomputed from a byte-identical copy from one that
	// was only recorded.
	ChecksumFrom string `json:"checksum_from,omitempty"`
	// Unpack is "" (the file is used as downloaded) or "tar.gz" (Extract
	// names the members to write).
	Unpack  string   `json:"unpack,omitempty"`
	Extract []Member `json:"extract,omitempty"`
}

// Member is a file taken out of an archive.
type Member struct {
	// Member is the name inside the archive; Path where it is written,
	// relative to the dataset's Dir.
	Member string `json:"member"`
	Path   string `json:"path"`
	// Size and SHA256 are checked when given (the archive's own checksum
	// already covers every member).
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// UnpackTarGz is the File.Unpack value of a gzip-compressed tar archive.
const UnpackTarGz = "tar.gz"

//go:embed sources.json
var sourcesJSON []byte

// Sources returns the built-in manifest: the public benchmark files and
// where they come from (sources.json).
func Sources() (*Manifest, error) {
	m, err := ParseManifest(sourcesJSON)
	if err != nil {
		return nil, fmt.Errorf("built-in sources.json: %w", err)
	}
	return m, nil
}

// Names lists the dataset names of m, in manifest order.
func (m *Manifest) Names() []string {
	names := make([]string, len(m.Datasets))
	for i, d := range m.Datasets {
		names[i] = d.Name
	}
	return names
}

// Dataset returns the dataset called name.
func (m *Manifest) Dataset(name string) (*Dataset, error) {
	for i := range m.Datasets {
		if m.Datasets[i].Name == name {
			return &m.Datasets[i], nil
		}
	}
	return nil, fmt.Errorf("unknown dataset %q (want one of %s)", name, strings.Join(m.Names(), ", "))
}

var (
	namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	// npmSpecPattern is an npm package name, scoped or not, at an exact
	// semver version: no ranges, tags, URLs, git or file specs, so that
	// the checksum pins what the npm client fetches.
	npmSpecPattern = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*@(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	errNoData      = errors.New("empty manifest")
)

// ParseManifest reads a manifest from JSON and checks it: unknown fields,
// missing values, malformed checksums, URLs that are not http(s), npm specs
// not pinned to an exact version, a file with both or neither, and paths
// that are absolute, unclean or leave the dataset's folder are errors, so
// that a bad manifest can never write outside the data directory.
func ParseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if dec.More() {
		return nil, errors.New("manifest: data after the JSON object")
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	return &m, nil
}

func (m *Manifest) validate() error {
	if len(m.Datasets) == 0 {
		return errNoData
	}
	names := map[string]bool{}
	for i := range m.Datasets {
		d := &m.Datasets[i]
		if !namePattern.MatchString(d.Name) {
			return fmt.Errorf("dataset %d: name %q: want lowercase letters, digits and dashes", i+1, d.Name)
		}
		if names[d.Name] {
			return fmt.Errorf("dataset %s: named twice", d.Name)
		}
		names[d.Name] = true
		if err := d.validate(); err != nil {
			return fmt.Errorf("dataset %s: %w", d.Name, err)
		}
	}
	return nil
}

func (d *Dataset) validate() error {
	if err := checkPath(d.Dir); err != nil {
		return fmt.Errorf("dir: %w", err)
	}
	if d.Licence == "" {
		return errors.New("no licence: say what the terms are, even if unknown")
	}
	if len(d.Files) == 0 {
		return errors.New("no files")
	}
	// Every path written (downloads, their .part files, members) must be
	// distinct, or one file would overwrite another.
	written := map[string]bool{}
	claim := func(p string) error {
		if written[p] {
			return fmt.Errorf("path %q written twice", p)
		}
		written[p] = true
		return nil
	}
	for i, f := range d.Files {
		if err := f.validate(); err != nil {
			return fmt.Errorf("file %d: %w", i+1, err)
		}
		if err := claim(f.Path); err != nil {
			return err
		}
		if err := claim(f.Path + partSuffix); err != nil {
			return err
		}
		for _, mb := range f.Extract {
			if err := claim(mb.Path); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *File) validate() error {
	switch {
	case f.URL != "" && f.NPM != "":
		return fmt.Errorf("both url %q and npm %q: give one", f.URL, f.NPM)
	case f.NPM != "":
		if !npmSpecPattern.MatchString(f.NPM) {
			return fmt.Errorf("npm %q: want NAME@VERSION with an exact version, such as left-pad@1.3.0", f.NPM)
		}
	default:
		u, err := url.Parse(f.URL)
		if err != nil {
			return fmt.Errorf("url: %w", err)
		}
		if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("url %q: want an http(s) URL with a host (or an npm package spec in npm)", f.URL)
		}
	}
	if err := checkPath(f.Path); err != nil {
		return fmt.Errorf("path: %w", err)
	}
	if f.Size <= 0 {
		return fmt.Errorf("%s: size %d: want the size in bytes", f.Path, f.Size)
	}
	if err := checkSHA256(f.SHA256); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	switch f.Unpack {
	case "":
		if len(f.Extract) > 0 {
			return fmt.Errorf("%s: extract is given but unpack is not", f.Path)
		}
	case UnpackTarGz:
		if len(f.Extract) == 0 {
			return fmt.Errorf("%s: unpack %s needs the members to extract", f.Path, f.Unpack)
		}
		members := map[string]bool{}
		for _, mb := range f.Extract {
			if mb.Member == "" {
				return fmt.Errorf("%s: a member with no name", f.Path)
			}
			if members[mb.Member] {
				return fmt.Errorf("%s: member %q extracted twice", f.Path, mb.Member)
			}
			members[mb.Member] = true
			if err := checkPath(mb.Path); err != nil {
				return fmt.Errorf("%s: member %s: %w", f.Path, mb.Member, err)
			}
			if mb.Size < 0 {
				return fmt.Errorf("%s: member %s: negative size", f.Path, mb.Member)
			}
			if mb.SHA256 != "" {
				if err := checkSHA256(mb.SHA256); err != nil {
					return fmt.Errorf("%s: member %s: %w", f.Path, mb.Member, err)
				}
			}
		}
	default:
		return fmt.Errorf("%s: unpack %q: want nothing or %q", f.Path, f.Unpack, UnpackTarGz)
	}
	return nil
}

// checkPath accepts a clean, relative, slash-separated path that stays
// inside its folder.
func checkPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.Contains(p, `\`):
		return fmt.Errorf("%q: use forward slashes", p)
	case path.Clean(p) != p || p == ".":
		return fmt.Errorf("%q: not a clean path", p)
	case !filepath.IsLocal(filepath.FromSlash(p)):
		return fmt.Errorf("%q: must be relative and stay inside its folder", p)
	case strings.HasSuffix(p, partSuffix):
		return fmt.Errorf("%q: the %s suffix is reserved for partial downloads", p, partSuffix)
	}
	return nil
}

func checkSHA256(s string) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 || strings.ToLower(s) != s {
		return fmt.Errorf("sha256 %q: want 64 lowercase hex digits", s)
	}
	return nil
}
