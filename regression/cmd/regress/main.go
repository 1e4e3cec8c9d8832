// Command regress runs as2's regression specs (regression/specs) and keeps
// their records (regression/records), after Anserini's regressions: every
// table in the docs is a set of specs, each run is recorded as it finishes,
// and the docs' tables are written from the records.
//
//	go run ./regression/cmd/regress list [--tier T]
//	go run ./regression/cmd/regress run --tier quick | NAME...
//	go run ./regression/cmd/regress check [NAME...]
//	go run ./regression/cmd/regress docs [--check]
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/as2/as2/regression"
	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := root().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "regress:", err)
		os.Exit(1)
	}
}

type paths struct{ specs, tables, records, cache string }

func root() *cobra.Command {
	var p paths
	c := &cobra.Command{
		Use:           "regress",
		Short:         "Run as2's regression specs, check their records, write the docs' tables",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	c.PersistentFlags().StringVar(&p.specs, "specs", "regression/specs", "folder of the specs (*.yaml, one table each)")
	c.PersistentFlags().StringVar(&p.tables, "tables", "regression/tables", "folder of the docs' tables (*.yaml, one view each, named as the docs' markers)")
	c.PersistentFlags().StringVar(&p.records, "records", "regression/records", "folder of the records (NAME.json, one spec each); another folder regenerates from scratch")
	c.PersistentFlags().StringVar(&p.cache, "cache", "out/regress-cache", "folder for pre-trained models several specs start from")
	c.AddCommand(listCmd(&p), runCmd(&p), checkCmd(&p), docsCmd(&p), testsCmd())
	return c
}

func load(p *paths) (*regression.Specs, *regression.Records, error) {
	ss, err := regression.LoadSpecs(p.specs)
	if err != nil {
		return nil, nil, err
	}
	if err := ss.LoadViews(p.tables); err != nil {
		return nil, nil, err
	}
	rs, err := regression.LoadRecords(p.records)
	if err != nil {
		return nil, nil, err
	}
	return ss, rs, nil
}

func listCmd(p *paths) *cobra.Command {
	var tier string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the specs: tier, seeds recorded, expected minutes, table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ss, rs, err := load(p)
			if err != nil {
				return err
			}
			specs := ss.All()
			if tier != "" {
				if specs, err = ss.Select(tier, nil); err != nil {
					return fmt.Errorf("--tier: %w", err)
				}
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "SPEC\tTIER\tRECORDED\tMINUTES\tTABLE")
			tiers := map[string]float64{}
			for _, s := range specs {
				want := max(1, len(s.Seeds))
				fmt.Fprintf(w, "%s\t%s\t%d/%d\t%.1f\t%s\n", s.Name, s.Tier, len(rs.Runs(s.Name)), want, s.Minutes, s.Table().Name)
				tiers[s.Tier] += s.Minutes
			}
			w.Flush()
			for _, t := range []string{regression.TierQuick, regression.TierLong, regression.TierFull} {
				if m, ok := tiers[t]; ok {
					fmt.Fprintf(cmd.OutOrStdout(), "tier %s: %.0f minutes expected\n", t, m)
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&tier, "tier", "", "only this tier: quick, long or full")
	return c
}

func runCmd(p *paths) *cobra.Command {
	var tier string
	var rerun bool
	c := &cobra.Command{
		Use:   "run (--tier T | NAME...)",
		Short: "Run specs (by tier, or by spec or table name); each finished seed is recorded at once, so a stopped run resumes",
		Long: `Run specs: those of a tier, or the specs and tables named. Seeds already
recorded are skipped, so running the same command again resumes a stopped
run; --rerun replaces them, and --records DIR regenerates into another
folder from scratch. Progress goes to stderr.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (tier == "") == (len(args) == 0) {
				return fmt.Errorf("give --tier or spec names, not both or neither")
			}
			ss, rs, err := load(p)
			if err != nil {
				return err
			}
			specs, err := ss.Select(tier, args)
			if err != nil {
				if tier != "" {
					err = fmt.Errorf("--tier: %w", err)
				}
				return err
			}
			root, err := os.Getwd()
			if err != nil {
				return err
			}
			cache, err := filepath.Abs(p.cache)
			if err != nil {
				return err
			}
			stderr := cmd.ErrOrStderr()
			fmt.Fprintf(stderr, "%d specs, %.0f minutes expected\n", len(specs), regression.Minutes(specs))
			r := &regression.Runner{Records: rs, Root: root, Cache: cache, Progress: stderr, Machine: regression.Machine(), Rerun: rerun,
				AS2: filepath.Join(cache, "as2")}
			if regression.NeedsAS2(specs) {
				if err := regression.BuildAS2(cmd.Context(), root, r.AS2, stderr); err != nil {
					return err
				}
			}
			if err := r.Run(cmd.Context(), specs); err != nil {
				return err
			}
			return report(cmd, regression.Check(specs, rs, true))
		},
	}
	c.Flags().StringVar(&tier, "tier", "", "run the specs of this tier: quick, long or full")
	c.Flags().BoolVar(&rerun, "rerun", false, "run seeds that have a record again, replacing it")
	return c
}

func report(cmd *cobra.Command, fails []regression.Failure) error {
	if len(fails) == 0 {
		fmt.Fprintln(cmd.OutOrStdout(), "ok: every record within its spec's tolerance")
		return nil
	}
	var lines []string
	for _, f := range fails {
		lines = append(lines, f.String())
	}
	return fmt.Errorf("%d outside their specs:\n  %s", len(fails), strings.Join(lines, "\n  "))
}

func checkCmd(p *paths) *cobra.Command {
	return &cobra.Command{
		Use:   "check [NAME...]",
		Short: "Check the records against their specs' expected metrics and tolerances (named specs must have records)",
		RunE: func(cmd *cobra.Command, args []string) error {
			ss, rs, err := load(p)
			if err != nil {
				return err
			}
			specs := ss.All()
			if len(args) > 0 {
				if specs, err = ss.Select("", args); err != nil {
					return err
				}
			}
			return report(cmd, regression.Check(specs, rs, len(args) > 0))
		},
	}
}

func docsCmd(p *paths) *cobra.Command {
	var check bool
	c := &cobra.Command{
		Use:   "docs [--check] [FILE.md...]",
		Short: "Write the tables between <!-- regress:begin NAME --> and <!-- regress:end NAME --> from the records (default files: README.md, docs/*.md)",
		RunE: func(cmd *cobra.Command, args []string) error {
			ss, rs, err := load(p)
			if err != nil {
				return err
			}
			files := args
			if len(files) == 0 {
				files, err = regression.DocFiles(".")
				if err != nil {
					return err
				}
			}
			diffs, err := regression.UpdateDocs(files, ss, rs, check)
			if err != nil {
				return err
			}
			switch {
			case check && len(diffs) > 0:
				return fmt.Errorf("%d tables differ from the records (go run ./regression/cmd/regress docs rewrites them):\n  %s", len(diffs), strings.Join(diffs, "\n  "))
			case check:
				fmt.Fprintln(cmd.OutOrStdout(), "ok: every table in the docs equals its records")
			default:
				for _, d := range diffs {
					fmt.Fprintln(cmd.OutOrStdout(), "wrote", d)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&check, "check", false, "write nothing; fail listing the tables that differ from the records")
	return c
}

func testsCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "tests",
		Short:   "Summarise `go test -json` from stdin: failures, and how many tests were skipped for want of data or for their tier",
		Example: `  go test -json ./... | go run ./regression/cmd/regress tests`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := regression.SummarizeTests(cmd.InOrStdin(), cmd.OutOrStdout())
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), s.Report())
			if s.Failed > 0 || len(s.FailedPackages) > 0 {
				return fmt.Errorf("%d tests failed", s.Failed)
			}
			return nil
		},
	}
}
