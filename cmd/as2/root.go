package main

import (
	"fmt"
	"runtime/pprof"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/as2/as2/version"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "as2",
		Short: "Answer sentence selection: rank candidate sentences so that an answer comes first",
		Long: `as2 ranks the candidate sentences of a question so that one that answers it comes
first, evaluates rankers and serves them; benchmarks: docs/data.md.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	// --cpuprofile: where the time of a slow command goes (go tool pprof).
	var profile string
	var stopProfile func() error
	root.PersistentFlags().StringVar(&profile, "cpuprofile", "", "write a CPU profile of the command to this file (read it with go tool pprof)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if profile == "" {
			return nil
		}
		// A pending file replaces --cpuprofile at the end: no half profile.
		f, err := renameio.NewPendingFile(profile, renameio.WithPermissions(0o644))
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Cleanup()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		stopProfile = func() error {
			pprof.StopCPUProfile()
			defer f.Cleanup()
			return f.CloseAtomicallyReplace()
		}
		return nil
	}
	root.PersistentPostRunE = func(cmd *cobra.Command, args []string) error {
		if stopProfile == nil {
			return nil
		}
		if err := stopProfile(); err != nil {
			return fmt.Errorf("--cpuprofile %s: %w", profile, err)
		}
		return nil
	}
	root.AddCommand(newEvalCmd(), newRankCmd(), newDataCmd(), newTrainCmd(), newEmbeddingsCmd(), newBenchCmd(), newServeCmd(), newTriggerCmd(), newTuneCmd(), newImportCmd(), newQuantizeCmd(), newRetrieveCmd(), newIndexCmd(), newSearchCmd())
	return root
}
