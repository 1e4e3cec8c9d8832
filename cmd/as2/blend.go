package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/metric"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/rank/blend"
)

func newTuneBlendCmd() *cobra.Command {
	var (
		data    datasetFlags
		rankers string
		out     string
		opts    blend.Options
		folds   int
	)
	c := &cobra.Command{
		Use:   "blend",
		Short: "Fit a blend of rankers (weighted sum of their scores) on labelled dev questions",
		Long: `Fit the weights of a blend of rankers by logistic regression on every candidate
of the given questions (use a dev set: never the test set, nor the data a model
trained on): P(correct) = sigmoid(bias + sum of weight * score). This is the
WikiQA paper's CNN-Cnt: a neural score and word-count features in a logistic
regression (--listwise: a softmax over each question's candidates, which
optimises the ranking rather than the probability; --non-negative: no weight
below 0). --out writes the blend as JSON, which --model FILE.json reads
wherever a model file goes (eval, rank, cascades, serve); model files in it are
named relative to its folder. A blend file among --rankers is written as its
rankers, each weight multiplied by the one fitted for it (a blend file holds
no blend; scripts/equal-say.py writes such a file, to give models an equal
say). --cv K chooses --l2 by K-fold cross-validation over the questions
instead: each penalty of 0.001, 0.01, ..., 1000 is fitted on K-1 folds and
scored by the fit's loss on the one left out, and the best is refitted on every
question (few dev questions from the data the models trained on otherwise let
the fit trust the models more than other text will). The dev MAP of each ranker
and of the blend is printed.`,
		Example: `  as2 tune blend --rankers m.as2,wo,idf-overlap,bm25 --dataset wikiqa --split dev --out blend.json
  as2 tune blend --rankers m.as2,wo,bm25-stem --listwise --non-negative --cv 5 --dataset wikiqa --split dev --out blend.json
  as2 eval --model blend.json --dataset wikiqa --split test`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" || rankers == "" || out == "" {
				return errors.New("--dataset, --rankers and --out are required")
			}
			if opts.L2 < 0 {
				return fmt.Errorf("--l2 %v: must be >= 0", opts.L2)
			}
			if folds < 0 || folds == 1 {
				return fmt.Errorf("--cv %d: needs at least 2 folds", folds)
			}
			if folds > 0 && cmd.Flags().Changed("l2") {
				return errors.New("--l2 and --cv: give one (--cv chooses the penalty)")
			}
			_, qs, _, err := data.load("", "")
			if err != nil {
				return err
			}
			names := strings.Split(rankers, ",")
			var rs []rank.Ranker
			for _, name := range names {
				rf := specRanker(name, rank.DefaultOptions())
				r, err := rf.build(qs)
				if err != nil {
					return fmt.Errorf("--rankers %s: %w", name, err)
				}
				rs = append(rs, r)
			}
			var b *blend.Blend
			if folds > 0 {
				var scores []blend.CVScore
				if b, scores, err = blend.FitCV(cmd.Context(), rs, qs, opts, folds, nil); err != nil {
					return err
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
				fmt.Fprintf(tw, "l2\theld-out loss (%d folds)\n", folds)
				for _, s := range scores {
					fmt.Fprintf(tw, "%g\t%.5f\n", s.L2, s.Loss)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			} else if b, err = blend.Fit(cmd.Context(), rs, qs, opts); err != nil {
				return err
			}
			spec := blend.Spec{Bias: b.Bias}
			dir, err := filepath.Abs(filepath.Dir(out))
			if err != nil {
				return err
			}
			for i, name := range names {
				if err := addFlat(&spec, dir, name, "", b.Weights[i]); err != nil {
					return fmt.Errorf("--rankers %s: %w", name, err)
				}
			}
			if err := writeAtomic(out, cmd.OutOrStdout(), func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(spec)
			}); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "ranker\tweight\tdev MAP (%d questions)\n", len(qs))
			for i, r := range append(rs, rank.Ranker(b)) {
				name, w := "blend (bias "+fmt.Sprintf("%.4f", b.Bias)+")", ""
				if i < len(names) {
					name, w = names[i], fmt.Sprintf("%.4f", b.Weights[i])
				}
				rep, err := evaluation.Evaluate(cmd.Context(), r, qs, evaluation.Options{Measures: []metric.Measure{metric.MustParseMeasure("map")}})
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%s\t%.4f\n", name, w, rep.Result.Mean["map"])
			}
			return tw.Flush()
		},
	}
	fs := c.Flags()
	data.register(fs, "answered")
	fs.StringVar(&rankers, "rankers", "", "comma-separated rankers to blend: model files (as --model reads them: FILE.run blends another system's TREC run) or rule-based rankers (required)")
	fs.StringVar(&out, "out", "", "blend file to write (JSON; required; written atomically)")
	fs.Float64Var(&opts.L2, "l2", 1e-3, "L2 penalty on the (standardised) weights")
	fs.IntVar(&folds, "cv", 0, "choose --l2 by this many folds of cross-validation over the questions (question i in fold i mod K; 0: use --l2)")
	fs.BoolVar(&opts.Listwise, "listwise", false, "fit a softmax over each question's candidates (ranks better; the scores are then not probabilities: calibrate with as2 trigger) instead of a logistic regression over all candidates")
	fs.BoolVar(&opts.NonNegative, "non-negative", false, "keep every weight >= 0: a ranker the fit weighs negatively is set to 0 and the rest refitted (rankers that nearly repeat each other otherwise get opposite weights that cancel on the dev set)")
	return c
}

// addFlat adds the ranker name (a rule-based ranker, or a file named
// relative to the folder from; "" for the current one) to spec with weight
// w, naming files relative to dir, the blend file's folder. A blend file
// is added as its rankers, each weight times w, and its bias times w: the
// blend written is flat, as loadBlend requires, and scores as the nested
// one would (loadBlend, which fitting used, refuses a blend in a blend, so
// one level is all there is). A ranker already in spec gets the weight
// added to its own.
func addFlat(spec *blend.Spec, dir, name, from string, w float64) error {
	file := memberFile(from, name)
	if file == "" {
		spec.Add(name, w)
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	if filepath.Ext(abs) == ".json" {
		inner, err := readBlendSpec(abs)
		if err != nil {
			return err
		}
		spec.Bias += w * inner.Bias
		for i, n := range inner.Rankers {
			if err := addFlat(spec, dir, n, filepath.Dir(abs), w*inner.Weights[i]); err != nil {
				return fmt.Errorf("%s: %w", abs, err)
			}
		}
		return nil
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return err
	}
	spec.Add(rel, w)
	return nil
}

// memberFile is the file a blend in folder dir names by name, or "" for
// a rule-based ranker: blend files name model files relative to their
// folder.
func memberFile(dir, name string) string {
	file := specFile(name)
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	return file
}

// readBlendSpec reads a blend file's spec.
func readBlendSpec(path string) (blend.Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return blend.Spec{}, err
	}
	defer f.Close()
	spec, err := blend.ReadSpec(f)
	if err != nil {
		return blend.Spec{}, fmt.Errorf("%s: %w", path, err)
	}
	return spec, nil
}

// loadBlend reads a blend file (as2 tune blend --out), its rankers named
// relative to its folder.
func loadBlend(path string) (rank.Ranker, error) {
	spec, err := readBlendSpec(path)
	if err != nil {
		return nil, err
	}
	b, err := spec.Build(func(name string) (rank.Ranker, error) {
		if file := memberFile(filepath.Dir(path), name); file != "" {
			if filepath.Ext(file) == ".json" {
				return nil, errors.New("a blend cannot hold a blend")
			}
			return loadModel(file)
		}
		return namedRanker(name, rank.DefaultOptions())
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
