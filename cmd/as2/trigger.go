package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/model/builtin"
	"github.com/as2/as2/trigger"
)

func newTriggerCmd() *cobra.Command {
	var (
		data     datasetFlags
		ranker   rankerFlags
		fitSplit string
		calFile  string
		out      string
		format   string
	)
	cmd := &cobra.Command{
		Use:   "trigger",
		Short: "Answer triggering: calibrate a ranker on dev to say \"no answer\", measure it on test",
		Long: `Answer triggering (the WikiQA paper's task): decide whether a question has a
correct candidate at all. The ranker's top score is calibrated into a
probability with Platt scaling fitted on --fit-split (all its questions), and
the threshold with the best F1 there is kept; precision, recall and F1 are then
measured on --split: a question is answered correctly when the system triggers
and its top candidate is correct; recall counts the questions that have one.

--calibration FILE (from as2 trigger --out) measures that calibration on
--split instead of fitting one, e.g. on text unlike the data it was fitted
on; --calibration builtin measures the built-in model's own.`,
		Example: `  as2 trigger --model m.as2 --dataset wikiqa --fit-split dev --split test --out calibration.json
  as2 trigger --ranker builtin --calibration builtin --dataset squad --path questions.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" {
				return fmt.Errorf("--dataset is required")
			}
			fixed := calFile != ""
			if fixed && (cmd.Flags().Changed("fit-split") || out != "") {
				return fmt.Errorf("--calibration %s: nothing is fitted, so --fit-split and --out do not apply", calFile)
			}
			testSplit := data.split
			if testSplit == "" {
				testSplit = "test"
			}
			var devQs []dataset.Question
			if !fixed {
				var err error
				if devQs, _, _, err = data.load(fitSplit, ""); err != nil {
					return err
				}
			}
			testQs, _, _, err := data.load(testSplit, "")
			if err != nil {
				return err
			}
			statsQs := devQs // --idf collection: counted on what the calibration is fitted on
			if fixed {
				statsQs = testQs
			}
			r, err := ranker.build(statsQs)
			if err != nil {
				return err
			}
			var rows []triggerRow
			var c trigger.Calibration
			source := "fitted on " + fitSplit
			if fixed {
				if c, err = fixedCalibration(calFile, &ranker); err != nil {
					return err
				}
				source = "--calibration " + calFile
			} else {
				devTops, err := trigger.Tops(cmd.Context(), r, devQs)
				if err != nil {
					return err
				}
				if c, err = trigger.Fit(devTops); err != nil {
					return err
				}
				rows = append(rows, triggerRow{fitSplit, trigger.Measure(devTops, c)})
			}
			testTops, err := trigger.Tops(cmd.Context(), r, testQs)
			if err != nil {
				return err
			}
			rows = append(rows, triggerRow{testSplit, trigger.Measure(testTops, c)})
			if out != "" {
				if err := writeAtomic(out, cmd.OutOrStdout(), func(w io.Writer) error { return json.NewEncoder(w).Encode(c) }); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				js := map[string]any{"ranker": ranker.label(), "calibration": c}
				for _, row := range rows {
					js[row.split] = row.r
				}
				return json.NewEncoder(w).Encode(js)
			}
			fmt.Fprintf(w, "%s on %s: P(top correct) = sigmoid(%.4f*score + %.4f), trigger at >= %.4f (%s)\n", ranker.label(), data.name, c.A, c.B, c.Threshold, source)
			for _, row := range rows {
				fmt.Fprintf(w, "%-5s %d questions (%d with an answer): triggered %d, correct %d; precision %.2f recall %.2f F1 %.2f\n",
					row.split, row.r.Questions, row.r.Answerable, row.r.Triggered, row.r.Correct, 100*row.r.Precision, 100*row.r.Recall, 100*row.r.F1)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	ranker.register(fs)
	fs.StringVar(&fitSplit, "fit-split", "dev", "split the calibration and threshold are fitted on")
	fs.StringVar(&calFile, "calibration", "", "measure this calibration (JSON from as2 trigger --out, or builtin: the built-in model's) instead of fitting one")
	fs.StringVar(&out, "out", "", "write the calibration as JSON to this file")
	fs.StringVar(&format, "format", "table", "output: table or json")
	return cmd
}

// triggerRow is a split's answer-triggering result.
type triggerRow struct {
	split string
	r     trigger.Result
}

// fixedCalibration is --calibration's: a file's, or the built-in model's
// own for "builtin" (which needs the built-in ranker).
func fixedCalibration(name string, ranker *rankerFlags) (trigger.Calibration, error) {
	if name != builtin.Name {
		c, err := trigger.LoadCalibration(name)
		if err != nil {
			return c, fmt.Errorf("--calibration: %w", err)
		}
		return c, nil
	}
	c, ok := ranker.calibration()
	if !ok {
		return c, fmt.Errorf("--calibration builtin is the built-in model's: rank with --ranker builtin")
	}
	return c, nil
}
