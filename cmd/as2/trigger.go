package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/as2/as2/trigger"
)

func newTriggerCmd() *cobra.Command {
	var (
		data     datasetFlags
		ranker   rankerFlags
		fitSplit string
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
and its top candidate is correct; recall counts the questions that have one.`,
		Example: `  as2 trigger --model m.as2 --dataset wikiqa --fit-split dev --split test --out calibration.json`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" {
				return fmt.Errorf("--dataset is required")
			}
			testSplit := data.split
			if testSplit == "" {
				testSplit = "test"
			}
			devQs, _, _, err := data.load(fitSplit, "")
			if err != nil {
				return err
			}
			testQs, _, _, err := data.load(testSplit, "")
			if err != nil {
				return err
			}
			r, err := ranker.build(devQs)
			if err != nil {
				return err
			}
			devTops, err := trigger.Tops(cmd.Context(), r, devQs)
			if err != nil {
				return err
			}
			c, err := trigger.Fit(devTops)
			if err != nil {
				return err
			}
			testTops, err := trigger.Tops(cmd.Context(), r, testQs)
			if err != nil {
				return err
			}
			dev, test := trigger.Measure(devTops, c), trigger.Measure(testTops, c)
			if out != "" {
				if err := writeAtomic(out, cmd.OutOrStdout(), func(w io.Writer) error { return json.NewEncoder(w).Encode(c) }); err != nil {
					return fmt.Errorf("--out: %w", err)
				}
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				return json.NewEncoder(w).Encode(map[string]any{"ranker": ranker.label(), "calibration": c, fitSplit: dev, testSplit: test})
			}
			fmt.Fprintf(w, "%s on %s: P(top correct) = sigmoid(%.4f*score + %.4f), trigger at >= %.4f (fitted on %s)\n", ranker.label(), data.name, c.A, c.B, c.Threshold, fitSplit)
			for _, row := range []struct {
				split string
				r     trigger.Result
			}{{fitSplit, dev}, {testSplit, test}} {
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
	fs.StringVar(&out, "out", "", "write the calibration as JSON to this file")
	fs.StringVar(&format, "format", "table", "output: table or json")
	return cmd
}
