package bench_test

import (
	"context"
	"fmt"

	"github.com/as2/as2/bench"
	"github.com/as2/as2/index"
)

// An approximate index's answers are scored against the exact ones by
// recall@k.
func ExampleRecall() {
	exact := []index.Hit{{ID: "s1"}, {ID: "s2"}, {ID: "s3"}, {ID: "s4"}}
	approx := []index.Hit{{ID: "s2"}, {ID: "s1"}, {ID: "s9"}, {ID: "s4"}}
	fmt.Println(bench.Recall(exact, approx, 2), bench.Recall(exact, approx, 4))
	// Output: 1 0.75
}

// A pool of a million vectors grows from the real ones by seeded mixtures;
// here two stored vectors are padded out to five.
func ExamplePadVectors() {
	x, _ := index.NewFlat(2)
	x.Add([]string{"a", "b"}, [][]float32{{1, 0}, {0, 1}})
	ids, _, real, err := bench.PadVectors(x, []string{"a", "b"}, 5, 1, 0.01)
	fmt.Println(ids, real, err)
	// Output: [a b pad-1 pad-2 pad-3] 2 <nil>
}

// lengthEncoder encodes a question by its length: any map from text to
// vectors serves to search with.
type lengthEncoder struct{}

func (lengthEncoder) EncodeAnswers(context.Context, []string) ([][]float32, error) { return nil, nil }

func (lengthEncoder) EncodeQuestion(_ context.Context, q string) ([]float32, error) {
	return []float32{float32(len(q)), 1}, nil
}

// Measuring the flat and binary indexes of a pool of 3 real vectors padded
// to 100.
func ExampleIndexes() {
	x, _ := index.NewFlat(2)
	ids := []string{"a", "b", "c"}
	x.Add(ids, [][]float32{{1, 0}, {0, 1}, {1, 1}})
	rep, err := bench.Indexes(context.Background(), x, ids, lengthEncoder{}, "length", []string{"why?", "who wrote it?"}, "two questions",
		bench.IndexOptions{Size: 100, Seed: 1, K: 3, Kinds: []string{index.FlatKind, index.BinaryKind}, Rescore: []int{100}})
	if err != nil {
		fmt.Println(err)
		return
	}
	// rep.Write(os.Stdout, "table") prints it all, timings included;
	// recall is what does not vary from run to run.
	for _, row := range rep.Rows {
		fmt.Printf("%s, %s: recall@3 %.2f\n", row.Index, row.Settings, row.Recall)
	}
	// Output:
	// flat, exact: recall@3 1.00
	// binary, rescore 100: recall@3 1.00
}
