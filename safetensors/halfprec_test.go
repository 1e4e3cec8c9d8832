package safetensors

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"testing"
)

// Half-precision tensors (as Hugging Face often saves them) are read and
// converted exactly to float32.
func TestReadHalfPrecision(t *testing.T) {
	cases := []struct {
		dtype string
		bits  []uint16
		want  []float32
	}{
		{"F16", []uint16{0x3c00, 0xc000, 0x3555, 0x0001, 0x8000, 0x7bff, 0x7c00},
			[]float32{1, -2, 0.333251953125, 5.960464477539063e-08, float32(math.Copysign(0, -1)), 65504, float32(math.Inf(1))}},
		{"BF16", []uint16{0x3f80, 0xc000, 0x3eab, 0x0000},
			[]float32{1, -2, 0.333984375, 0}},
	}
	for _, c := range cases {
		t.Run(c.dtype, func(t *testing.T) {
			header := []byte(`{"w":{"dtype":"` + c.dtype + `","shape":[` + itoa(len(c.bits)) + `],"data_offsets":[0,` + itoa(2*len(c.bits)) + `]}}`)
			var buf bytes.Buffer
			binary.Write(&buf, binary.LittleEndian, uint64(len(header)))
			buf.Write(header)
			binary.Write(&buf, binary.LittleEndian, c.bits)
			got, _, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if g := got[0].Data[i]; math.Float32bits(g) != math.Float32bits(w) {
					t.Errorf("element %d (%#04x): %v, want %v", i, c.bits[i], g, w)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
