package nn

import (
	"fmt"
	"math"
)

// RotaryQKV applies rotary position embeddings (RoPE; Su et al. 2021,
// "RoFormer", §3.4.2, eq. 34) to the queries and keys of a fused
// self-attention projection qkv [B·T, 3D] whose column blocks are the
// queries, keys and values (SelfAttentionQKV's layout), with heads heads of
// width dh = D/heads. Row r is position r mod seqLen (sequences padded to
// seqLen, as ForwardBatch packs them). Within each head, dimension i < dh/2
// is paired with i + dh/2 (the "rotate half" layout of GPT-NeoX and Hugging
// Face's models, not RoFormer's interleaved pairs) and the pair is rotated
// by the angle p·θ^(−2i/dh):
//
//	x'ᵢ        = xᵢ·cos − xᵢ₊dh/2·sin
//	x'ᵢ₊dh/2   = xᵢ₊dh/2·cos + xᵢ·sin
//
// The values pass through unchanged. The result is a new [B·T, 3D] matrix;
// the backward pass rotates the gradient back (by −angle), a rotation's
// transpose.
func (tp *Tape[T]) RotaryQKV(qkv *Var[T], heads, seqLen int, theta float64) *Var[T] {
	n, d3 := mustMatrix("RotaryQKV", qkv)
	if d3%3 != 0 || heads <= 0 || (d3/3)%heads != 0 || (d3/3/heads)%2 != 0 {
		panic(fmt.Sprintf("nn: RotaryQKV: %v is not [N, 3D] with %d heads of even width", qkv.Value.Shape, heads))
	}
	if seqLen <= 0 || n%seqLen != 0 || !(theta > 0) {
		panic(fmt.Sprintf("nn: RotaryQKV: %d rows in sequences of %d, theta %v", n, seqLen, theta))
	}
	d := d3 / 3
	half := d / heads / 2
	cos, sin := rotaryTable[T](seqLen, half, theta)
	y := tp.outDirty(anyGrad(qkv), n, d3)
	rotaryRows(y.Value.Data, qkv.Value.Data, cos, sin, n, seqLen, d, half, 1)
	if y.Grad != nil {
		tp.record(func() {
			// dx = Rᵀ·dy: the same rotation by the opposite angle, added.
			g := tp.arena.allocDirty(n * d3)
			rotaryRows(g, y.Grad.Data, cos, sin, n, seqLen, d, half, -1)
			addTo(qkv.Grad.Data, g)
		})
	}
	return y
}

// rotaryTable holds cos and sin of position p's angle for pair i at
// [p·half + i], computed in float64.
func rotaryTable[T Float](seqLen, half int, theta float64) (cos, sin []T) {
	cos, sin = make([]T, seqLen*half), make([]T, seqLen*half)
	for i := 0; i < half; i++ {
		inv := 1 / math.Pow(theta, float64(2*i)/float64(2*half))
		for p := 0; p < seqLen; p++ {
			s, c := math.Sincos(float64(p) * inv)
			cos[p*half+i], sin[p*half+i] = T(c), T(s)
		}
	}
	return cos, sin
}

// rotaryRows writes x's rows rotated (sign 1) or rotated back (sign −1)
// into y: the query and key blocks per head, the value block copied.
func rotaryRows[T Float](y, x, cos, sin []T, n, seqLen, d, half int, sign T) {
	d3 := 3 * d
	for r := 0; r < n; r++ {
		p := r % seqLen
		c, s := cos[p*half:(p+1)*half], sin[p*half:(p+1)*half]
		xr, yr := x[r*d3:(r+1)*d3], y[r*d3:(r+1)*d3]
		for h := 0; h < 2*d; h += 2 * half {
			a, b := xr[h:h+half], xr[h+half:h+2*half]
			ya, yb := yr[h:h+half], yr[h+half:h+2*half]
			for i := range a {
				si := sign * s[i]
				ya[i] = a[i]*c[i] - b[i]*si
				yb[i] = b[i]*c[i] + a[i]*si
			}
		}
		copy(yr[2*d:], xr[2*d:])
	}
}
