package nn_test

import (
	"testing"

	. "github.com/as2/as2/nn"
	"github.com/as2/as2/nn/nntest"
)

func TestGradBasicOps(t *testing.T) {
	nntest.Run(t, []nntest.Case{
		{Name: "MatMul", Inputs: [][]int{{3, 4}, {4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[1])
		})},
		{Name: "MatMulVec", Inputs: [][]int{{4}, {4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[1])
		})},
		{Name: "MatMulT", Inputs: [][]int{{3, 4}, {5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMulT(in[0], in[1])
		})},
		{Name: "MatMulSelf", Inputs: [][]int{{3, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.MatMul(in[0], in[0]) // a Var used twice accumulates both paths
		})},
		{Name: "Linear", Inputs: [][]int{{3, 4}, {4, 2}, {2}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Linear(in[0], in[1], in[2])
		})},
		{Name: "LinearNoBias", Inputs: [][]int{{4}, {4, 2}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Linear(in[0], in[1], nil)
		})},
		{Name: "AddBias", Inputs: [][]int{{3, 4}, {4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.AddBias(in[0], in[1])
		})},
		{Name: "AddSubMul", Inputs: [][]int{{2, 3}, {2, 3}, {2, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Mul(tp.Add(in[0], in[1]), tp.Sub(in[2], in[0]))
		})},
		{Name: "Scale", Inputs: [][]int{{5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Scale(in[0], -2.5)
		})},
		{Name: "ReLU", Inputs: [][]int{{4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ReLU(in[0])
		})},
		{Name: "Tanh", Inputs: [][]int{{4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Tanh(in[0])
		})},
		{Name: "Sigmoid", Inputs: [][]int{{4, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Sigmoid(in[0])
		})},
		{Name: "ConcatVec", Inputs: [][]int{{3}, {2}, {4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(in[0], in[1], in[2])
		})},
		{Name: "ConcatMat", Inputs: [][]int{{3, 2}, {3, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(in[0], in[1])
		})},
		{Name: "Stack", Inputs: [][]int{{3}, {2, 3}, {3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Stack(in[0], in[1], in[2])
		})},
		{Name: "RowsRowSliceCols", Inputs: [][]int{{5, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(tp.Row(in[0], 3), tp.SliceCols(tp.Row(in[0], 1), 1, 3),
				tp.SliceCols(tp.Reshape(tp.Rows(in[0], 1, 3), 8), 2, 7))
		})},
		{Name: "SliceColsMat", Inputs: [][]int{{3, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.SliceCols(in[0], 1, 4)
		})},
		{Name: "ReverseRows", Inputs: [][]int{{4, 3}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ReverseRows(in[0])
		})},
		{Name: "Reshape", Inputs: [][]int{{2, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Tanh(tp.Reshape(in[0], 3, 4))
		})},
		{Name: "SumMean", Inputs: [][]int{{3, 4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Concat(tp.Sum(in[0]), tp.Mean(tp.Tanh(in[0])))
		})},
		{Name: "Dropout", Inputs: [][]int{{6, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Dropout(in[0], 0.3)
		})},
	})
}

func TestGradSoftmaxLosses(t *testing.T) {
	nntest.Run(t, []nntest.Case{
		{Name: "SoftmaxVec", Inputs: [][]int{{6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Softmax(in[0])
		})},
		{Name: "SoftmaxRows", Inputs: [][]int{{3, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Softmax(in[0])
		})},
		{Name: "ClipSoftmaxKMax", Inputs: [][]int{{3, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(in[0], 3, 0)
		})},
		{Name: "ClipSoftmaxThreshold", Inputs: [][]int{{4, 6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(tp.Scale(in[0], 2), 0, 0.1)
		})},
		{Name: "ClipSoftmaxVecKMax", Inputs: [][]int{{8}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.ClipSoftmax(in[0], 4, 0)
		})},
		{Name: "LogSoftmaxRows", Inputs: [][]int{{3, 5}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.LogSoftmax(in[0])
		})},
		{Name: "KLDiv", Inputs: [][]int{{6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KLDiv(in[0], []float64{0, 1, 0, 0, 1, 0})
		})},
		{Name: "KLDivSoft", Inputs: [][]int{{4}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.KLDiv(tp.Scale(in[0], 3), []float64{0.2, 0.5, 0.1, 0.2})
		})},
		{Name: "BCEWithLogits", Inputs: [][]int{{6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.BCEWithLogits(tp.Scale(in[0], 4), []float64{0, 1, 0, 1, 0.5, 0})
		})},
		{Name: "Hinge", Inputs: [][]int{{6}}, Build: nntest.Op(func(tp *Tape[float64], in []*Var[float64]) *Var[float64] {
			return tp.Hinge(in[0], []float64{0, 1, 0, 0, 1, 0}, 1)
		})},
	})
}
