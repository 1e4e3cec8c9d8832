package nn_test

import (
	"fmt"

	"github.com/as2/as2/nn"
)

// Fit y = 2·x₀ − 3·x₁ + 1 with a linear layer, Adam and a slanted
// triangular learning rate, two workers computing gradients in parallel.
func Example() {
	rng := nn.NewRNG(1)
	ps := nn.NewParams[float32]()
	lin := nn.NewLinear(ps, "lin", 2, 1, true, rng)

	var xs [][]float32
	var ys []float32
	for i := 0; i < 32; i++ {
		x0, x1 := float32(rng.Float64()*2-1), float32(rng.Float64()*2-1)
		xs = append(xs, []float32{x0, x1})
		ys = append(ys, 2*x0-3*x1+1)
	}

	workers := nn.NewWorkers(ps, 2, 0)
	opt := nn.NewAdam(ps)
	const steps = 300
	sched := nn.NewSlantedTriangular(0.1, steps)
	var loss float64
	for step := 0; step < steps; step++ {
		sum, grads := workers.Run(len(xs), func(tp *nn.Tape[float32], i int) float64 {
			pred := lin.Forward(tp, tp.Const(nn.FromSlice(xs[i])))
			diff := tp.Sub(pred, tp.Const(nn.FromSlice(ys[i:i+1])))
			l := tp.Mul(diff, diff)
			tp.Backward(l)
			return l.Scalar()
		})
		if err := grads.CheckFinite(); err != nil {
			panic(fmt.Errorf("step %d: %w", step, err))
		}
		grads.Scale(1 / float64(len(xs)))
		opt.Step(grads, sched.At(step))
		loss = sum / float64(len(xs))
	}
	w, b := lin.W.Value.Data, lin.B.Value.Data
	fmt.Printf("w = [%.2f %.2f], b = %.2f, mse < 1e-4: %v\n", w[0], w[1], b[0], loss < 1e-4)
	// Output: w = [2.00 -3.00], b = 1.00, mse < 1e-4: true
}
