package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/trigger"
)

func newTriggerCmd() *cobra.Command {
	var data datasetFlags
	var ranker rankerFlags
	var fitSplit, calFile, out, format string
	cmd := &cobra.Command{
		Use:   "trigger",
		Short: "Answer triggering: calibrate a ranker on dev to say \"no answer\", measure it on test",
		Long: `Answer triggering (the WikiQA paper's task): fit Platt scaling of the top score
and the best-F1 threshold on --fit-split, measure them on --split (--calibration:
measure a fitted one). See docs/evaluation.md ("Answer triggering").`,
		Example: `  as2 trigger --model m.as2 --dataset wikiqa --fit-split dev --split test --out calibration.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fixed := calFile != ""
			if fixed && (cmd.Flags().Changed("fit-split") || out != "") {
				return fmt.Errorf("--calibration %s: nothing is fitted, so --fit-split and --out do not apply", calFile)
			}
			testSplit := cmp.Or(data.split, "test")
			var fitQs []dataset.Question
			if !fixed {
				var err error
				if fitQs, _, _, err = data.load(fitSplit, ""); err != nil {
					return err
				}
			}
			testQs, _, _, err := data.load(testSplit, "")
			if err != nil {
				return err
			}
			statsQs := fitQs // --idf collection: counted on what the calibration is fitted on
			if fixed {
				statsQs = testQs
			}
			r, err := ranker.build(statsQs)
			if err != nil {
				return err
			}
			var rep trigger.Report
			if fixed {
				var c *trigger.Calibration
				if c, err = calibration(r, calFile); err != nil {
					return err
				}
				rep, err = trigger.MeasureReport(cmd.Context(), r, *c, "--calibration "+calFile, testSplit, testQs)
			} else {
				rep, err = trigger.FitReport(cmd.Context(), r, fitSplit, fitQs, testSplit, testQs)
			}
			if err != nil {
				return err
			}
			rep.Ranker, rep.Dataset = ranker.label(), data.name
			if err := writeFlagFile(cmd, "--out", out, func(w io.Writer) error { return json.NewEncoder(w).Encode(rep.Calibration) }); err != nil {
				return err
			}
			return rep.Write(cmd.OutOrStdout(), format)
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	ranker.register(fs)
	fs.StringVar(&fitSplit, "fit-split", "dev", "split the calibration and threshold are fitted on")
	fs.StringVar(&calFile, "calibration", "", "measure this calibration (JSON from as2 trigger --out, or builtin: the built-in model's) instead of fitting one")
	fs.StringVar(&out, "out", "", "write the calibration as JSON to this file")
	formatFlag(cmd, &format)
	return cmd
}
