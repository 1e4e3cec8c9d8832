package has

import (
	"github.com/as2/as2/index"
	"github.com/as2/as2/nn"
)

// packRows packs the signs of x [rows, d] into rows of ⌈d/64⌉ words: bit
// set for x ≥ 0 (+1).
func packRows[T nn.Float](x []T, rows, d int) []uint64 {
	w := index.Words(d)
	out := make([]uint64, rows*w)
	for r := range rows {
		for j, v := range x[r*d : (r+1)*d] {
			if v >= 0 {
				out[r*w+j/64] |= 1 << (j % 64)
			}
		}
	}
	return out
}

// unpackRows writes the ±1 values of packed rows into x [rows, d], a byte
// (8 values) at a time from byteSigns.
func unpackRows(x []float32, packed []uint64, rows, d int) {
	w := index.Words(d)
	full := d / 8
	for r := range rows {
		row, out := packed[r*w:(r+1)*w], x[r*d:(r+1)*d]
		for k := range full {
			copy(out[8*k:8*k+8], byteSigns[row[k/8]>>(8*(k%8))&0xff][:])
		}
		for j := 8 * full; j < d; j++ {
			out[j] = float32(int(row[j/64]>>(j%64)&1)*2 - 1)
		}
	}
}

// byteSigns[b] are the ±1 values of the 8 bits of b, lowest first.
var byteSigns = func() (t [256][8]float32) {
	for b := range t {
		for j := range 8 {
			t[b][j] = float32((b>>j&1)*2 - 1)
		}
	}
	return t
}()

// Bytes per stored answer of `words` word states of size d, as the
// paper's Table 6 counts them (float32 values):
//
//   - PoolingBytes: a pooled vector [D] (the dual encoder stores one vector);
//   - FloatAttentionBytes: the float matrix V_a [L, D] that attention over
//     stored answers needs;
//   - HashBytes: HAS's binary matrix, ⌈D/64⌉ 64-bit words per word.
func PoolingBytes(d int) int64 { return 4 * int64(d) }

// FloatAttentionBytes: see PoolingBytes.
func FloatAttentionBytes(words, d int) int64 { return 4 * int64(words) * int64(d) }

// HashBytes: see PoolingBytes.
func HashBytes(words, d int) int64 { return 8 * int64(words) * int64(index.Words(d)) }
