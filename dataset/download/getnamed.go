package download

import (
	"cmp"
	"context"
	"os"
)

// GetNamed downloads the named datasets (Sources) into dir, opts.Mirror ""
// meaning $AS2_DATA_MIRROR: as2 data get. A name the manifest lacks is
// refused before anything is fetched or created, and a failed download's
// error is explained (Manifest.ExplainGet: offline, the files to copy in
// by hand).
func GetNamed(ctx context.Context, names []string, dir string, opts Options) error {
	sources, err := Sources()
	if err != nil { // the manifest is embedded and tested: a broken build
		return err
	}
	sets, err := sources.Select(names)
	if err != nil {
		return err
	}
	opts.Mirror = cmp.Or(opts.Mirror, os.Getenv(MirrorEnv))
	for _, d := range sets {
		if _, err := Get(ctx, d, dir, opts); err != nil {
			return sources.ExplainGet(d, dir, err)
		}
	}
	return nil
}
