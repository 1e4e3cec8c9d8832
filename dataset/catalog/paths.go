package catalog

import (
	"path/filepath"

	"github.com/as2/as2/dataset/trecqa"
	"github.com/as2/as2/dataset/wikiqa"
)

// SameDir reports whether a and b name the same folder, relative paths
// taken from the working directory: whether a download folder is the one
// DataDir reads.
func SameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// Splits are the splits of benchmark name that a command covers when no
// split is given: every official one (SQuAD: its default), or the one
// unnamed split of a file.
func Splits(name string) []string {
	switch name {
	case "wikiqa":
		return wikiqa.Splits
	case "trecqa":
		return trecqa.SplitNames()
	case "squad":
		return []string{DefaultSplit(name)}
	}
	return []string{""}
}
