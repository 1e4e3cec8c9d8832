package has

import (
	"math"
	"math/bits"
	"sync"

	"github.com/as2/as2/nn"
)

// hashLayer is the hashing layer, equation 1: B = tanh(β·V), element-wise,
// with the derivative the paper gives, ∂B/∂V = β(1 − B²).
func hashLayer[T nn.Float](tp *nn.Tape[T], v *nn.Var[T], beta float64) *nn.Var[T] {
	y := tp.OutputDirty(nn.AnyGrad(v), v.Value.Shape...)
	b := T(beta)
	for i, x := range v.Value.Data {
		y.Value.Data[i] = T(math.Tanh(float64(b * x)))
	}
	if y.Grad != nil {
		tp.OnBackward(func() {
			for i, g := range y.Grad.Data {
				t := y.Value.Data[i]
				v.Grad.Data[i] += g * b * (1 - t*t)
			}
		})
	}
	return y
}

// hashSTE is the hashing layer trained straight through (Hyper.HashTrain
// HashSTE): sgn(V) forward, as at test, and backward the gradient of
// tanh(βV), β(1 − tanh²(βV)), as though the forward pass had been
// hashLayer's.
func hashSTE[T nn.Float](tp *nn.Tape[T], v *nn.Var[T], beta float64) *nn.Var[T] {
	y := tp.OutputDirty(nn.AnyGrad(v), v.Value.Shape...)
	for i, x := range v.Value.Data {
		y.Value.Data[i] = sign(x)
	}
	if y.Grad != nil {
		b := T(beta)
		tp.OnBackward(func() {
			for i, g := range y.Grad.Data {
				t := T(math.Tanh(float64(b * v.Value.Data[i])))
				v.Grad.Data[i] += g * b * (1 - t*t)
			}
		})
	}
	return y
}

// binaryConstraint is equation 2, J^c = ‖B − 𝓑‖²_F, as a scalar [1], for a
// fixed binary code (the 𝓑-step sets it; the weights' step holds it
// constant): ∂J^c/∂B = 2(B − 𝓑).
func binaryConstraint[T nn.Float](tp *nn.Tape[T], b *nn.Var[T], code *nn.Tensor[T]) *nn.Var[T] {
	y := tp.OutputDirty(nn.AnyGrad(b), 1)
	var s T
	for i, x := range b.Value.Data {
		d := x - code.Data[i]
		s += d * d
	}
	y.Value.Data[0] = s
	if y.Grad != nil {
		tp.OnBackward(func() {
			g := 2 * y.Grad.Data[0]
			for i, x := range b.Value.Data {
				b.Grad.Data[i] += g * (x - code.Data[i])
			}
		})
	}
	return y
}

// sign is sgn with sgn(0) = +1, so that every state has a bit: bit 1 is
// +1, bit 0 is −1.
func sign[T nn.Float](x T) T {
	if x >= 0 {
		return 1
	}
	return -1
}

// signs is sgn(x) element-wise: the binary states ±1 of the test-time
// hashing layer (sgn(tanh(βx)) = sgn(x)).
func signs[T nn.Float](x *nn.Tensor[T]) *nn.Tensor[T] {
	out := nn.NewTensor[T](x.Shape...)
	for i, v := range x.Data {
		out.Data[i] = sign(v)
	}
	return out
}

// codebook is the training state of the binary codes 𝓑_a, one bit-packed
// matrix per training answer text (an answer that appears under several
// questions has one code). It is not saved: 𝓑_a = sgn(B_a) is what the
// alternating optimisation converges to and what inference recomputes.
type codebook struct {
	mu            sync.Mutex
	codes         map[string][]uint64
	flipped, bits int64 // since the last stats call
}

func newCodebook() *codebook { return &codebook{codes: map[string][]uint64{}} }

// updateCode is the 𝓑-step for one answer, with the weights fixed: 𝓑_a =
// sgn(B_a) = sgn(V_a), stored for the answer's text (counting the bits
// that changed since the answer was last seen) and returned as ±1 values
// for the weights' step.
func updateCode[T nn.Float](c *codebook, text string, v *nn.Tensor[T]) *nn.Tensor[T] {
	rows, d := v.Dims()
	packed := packRows(v.Data, rows, d)
	c.mu.Lock()
	if old, ok := c.codes[text]; ok && len(old) == len(packed) {
		for i, w := range old {
			c.flipped += int64(bits.OnesCount64(w ^ packed[i]))
		}
		c.bits += int64(rows * d)
	}
	c.codes[text] = packed
	c.mu.Unlock()
	return signs(v)
}

// stats reports how many answers have a code and the share of bits that
// changed since the last call.
func (c *codebook) stats() (answers int, flipRate float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bits > 0 {
		flipRate = float64(c.flipped) / float64(c.bits)
	}
	c.flipped, c.bits = 0, 0
	return len(c.codes), flipRate
}
