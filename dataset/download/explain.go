package download

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// MirrorEnv names a mirror of the upstream hosts (Options.Mirror) for
// as2 data get when --mirror is not given: for machines that reach the
// internet only through a local copy, and for tests. npm sources do not
// use it.
const MirrorEnv = "AS2_DATA_MIRROR"

// Select returns the datasets of m with names, in that order; an unknown
// name is an error.
func (m *Manifest) Select(names []string) ([]*Dataset, error) {
	var sets []*Dataset
	for _, name := range names {
		d, err := m.Dataset(name)
		if err != nil {
			return nil, err
		}
		sets = append(sets, d)
	}
	return sets, nil
}

// List describes m's datasets for a help text: name, title, origin and
// licence of each.
func (m *Manifest) List() string {
	var b strings.Builder
	for _, d := range m.Datasets {
		fmt.Fprintf(&b, "  %-7s %s\n          from: %s\n          licence: %s\n", d.Name, d.Title, d.Origin, d.Licence)
	}
	return b.String()
}

// withoutNPM lists the datasets of m that have no npm source, which a
// machine without npm can still get.
func (m *Manifest) withoutNPM() []string {
	var names []string
	for _, d := range m.Datasets {
		if !d.usesNPM() {
			names = append(names, d.Name)
		}
	}
	return names
}

func (d *Dataset) usesNPM() bool {
	for _, f := range d.Files {
		if f.NPM != "" {
			return true
		}
	}
	return false
}

// missing lists the files of d that are not yet in the data folder root.
func (d *Dataset) missing(root string) []string {
	var missing []string
	for _, p := range d.Placements(root) {
		if _, err := os.Stat(p.Path); err != nil {
			missing = append(missing, p.Path)
		}
	}
	return missing
}

// ExplainGet adds to err, Get's error for d into root, what the user can
// do: which datasets need no npm when npm is missing, and how to install
// d offline when its source cannot be reached.
func (m *Manifest) ExplainGet(d *Dataset, root string, err error) error {
	var nf *NPMNotFoundError
	if errors.As(err, &nf) {
		if plain := m.withoutNPM(); len(plain) > 0 {
			return fmt.Errorf("%s: %w: %s", d.Name, err, strings.Join(plain, ", "))
		}
	}
	if errors.As(err, new(*UnreachableError)) {
		return fmt.Errorf("%s: %w\n%s", d.Name, err, d.OfflineHelp(root))
	}
	return fmt.Errorf("%s: %w", d.Name, err)
}

// InstallHint adds to err, the error of loading dataset name from the data
// folder root, how to install it when its files are missing there: `as2
// data get NAME`, or, offline, which files to copy where. Other errors, and
// names with no download, are returned as they are.
func (m *Manifest) InstallHint(name, root string, err error) error {
	if err == nil {
		return nil
	}
	d, derr := m.Dataset(name)
	if derr != nil {
		return err
	}
	missing := d.missing(root)
	if len(missing) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s is not installed in the data folder %s (%d of its files missing, e.g. %s): run as2 data get %s to download it (set AS2_DATA to use another folder).\n%s",
		err, name, root, len(missing), missing[0], name, d.OfflineHelp(root))
}
