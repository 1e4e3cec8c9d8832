// Package safetensors reads and writes the safetensors format of Hugging
// Face (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON describing each tensor (dtype, shape and
// byte offsets into the data that follows) plus an optional "__metadata__"
// map of strings, then the raw little-endian tensor data. as2 stores model
// weights in it, so that other tools can read them, and its model
// configuration in the metadata.
//
// as2 writes float32 tensors ("F32"), and int8 ones ("I8") for quantised
// model files, whose scales the model file keeps; the reader also accepts
// F16 and BF16 (Hugging Face checkpoints are often saved in half precision).
// Every dtype is converted to float32, which represents each exactly. The
// reader trusts nothing in the file: the header size is bounded, every
// offset range must lie inside the data, match its shape and not overlap
// another, so a corrupt or hostile file gives an error, never a panic or a
// huge allocation.
package safetensors

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// MaxHeader bounds the JSON header, as the reference implementation does.
const MaxHeader = 100 << 20

// Tensor is a named float32 tensor.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
	// DType is the element type in the file: "" is F32. Read gives the
	// file's F16, BF16 or I8; Write writes I8 (every value an integer in
	// [-128, 127]) as I8 and the others as F32.
	DType string
}

type entry struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// Write writes tensors (in the order given) and metadata to w.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for _, t := range tensors {
		if t.Name == "" || t.Name == "__metadata__" {
			return fmt.Errorf("safetensors: invalid tensor name %q", t.Name)
		}
		if _, dup := header[t.Name]; dup {
			return fmt.Errorf("safetensors: tensor %q twice", t.Name)
		}
		if n := numel(t.Shape); n != len(t.Data) {
			return fmt.Errorf("safetensors: tensor %q has shape %v but %d values", t.Name, t.Shape, len(t.Data))
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		dtype := cmp.Or(t.DType, "F32")
		switch dtype {
		case "F32", "F16", "BF16":
			dtype = "F32" // exact: every half-precision value is a float32
		case "I8":
			for _, v := range t.Data {
				if v != float32(int8(v)) {
					return fmt.Errorf("safetensors: tensor %q: %v is not an int8", t.Name, v)
				}
			}
		default:
			return fmt.Errorf("safetensors: tensor %q: unknown dtype %q", t.Name, dtype)
		}
		size := int64(dtypeSize[dtype] * len(t.Data))
		header[t.Name] = entry{DType: dtype, Shape: shape, Offsets: [2]int64{off, off + size}}
		off += size
	}
	js, err := json.Marshal(header)
	if err != nil {
		return err
	}
	// The reference implementation pads the header with spaces to a
	// multiple of 8 so that the data is aligned.
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(js)))
	bw.Write(n[:])
	bw.Write(js)
	buf := make([]byte, 4096)
	for _, t := range tensors {
		for i := 0; i < len(t.Data); {
			k := 0
			if t.DType == "I8" {
				for ; k < len(buf) && i < len(t.Data); k, i = k+1, i+1 {
					buf[k] = byte(int8(t.Data[i]))
				}
			}
			for ; t.DType != "I8" && k+4 <= len(buf) && i < len(t.Data); k, i = k+4, i+1 {
				binary.LittleEndian.PutUint32(buf[k:], math.Float32bits(t.Data[i]))
			}
			if _, err := bw.Write(buf[:k]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// Read reads a whole safetensors stream: the tensors in file order and the
// metadata.
func Read(r io.Reader) ([]Tensor, map[string]string, error) {
	var n [8]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, nil, fmt.Errorf("safetensors: reading header length: %w", truncated(err))
	}
	hlen := binary.LittleEndian.Uint64(n[:])
	if hlen > MaxHeader {
		return nil, nil, fmt.Errorf("safetensors: header of %d bytes is larger than %d: not a safetensors file?", hlen, MaxHeader)
	}
	js := make([]byte, hlen)
	if _, err := io.ReadFull(r, js); err != nil {
		return nil, nil, fmt.Errorf("safetensors: reading %d-byte header: %w", hlen, truncated(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, nil, fmt.Errorf("safetensors: malformed header: %w", err)
	}
	var meta map[string]string
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, nil, fmt.Errorf("safetensors: __metadata__ is not a map of strings: %w", err)
		}
		delete(raw, "__metadata__")
	}
	type item struct {
		name string
		e    entry
	}
	items := make([]item, 0, len(raw))
	for name, v := range raw {
		var e entry
		if err := json.Unmarshal(v, &e); err != nil {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		// encoding/json matches keys regardless of case; the format's keys
		// are exact, so that a flipped case bit is not read as the key.
		var keys map[string]json.RawMessage
		json.Unmarshal(v, &keys)
		for _, k := range []string{"dtype", "shape", "data_offsets"} {
			if _, ok := keys[k]; !ok {
				return nil, nil, fmt.Errorf("safetensors: tensor %q has no %q", name, k)
			}
		}
		if len(keys) != 3 {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: unknown keys in %s", name, v)
		}
		size, ok := dtypeSize[e.DType]
		if !ok {
			return nil, nil, fmt.Errorf("safetensors: tensor %q has dtype %q; as2 reads F32, F16, BF16 and I8 only", name, e.DType)
		}
		for _, d := range e.Shape {
			if d < 0 {
				return nil, nil, fmt.Errorf("safetensors: tensor %q has negative dimension in shape %v", name, e.Shape)
			}
		}
		want := int64(size)
		for _, d := range e.Shape {
			if d != 0 && want > math.MaxInt64/int64(d) {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: shape %v too large", name, e.Shape)
			}
			want *= int64(d)
		}
		if e.Offsets[0] < 0 || e.Offsets[1]-e.Offsets[0] != want {
			return nil, nil, fmt.Errorf("safetensors: tensor %q: offsets %v do not hold shape %v", name, e.Offsets, e.Shape)
		}
		items = append(items, item{name, e})
	}
	// Data is read in offset order; ranges must tile the buffer exactly.
	sort.Slice(items, func(i, j int) bool { return items[i].e.Offsets[0] < items[j].e.Offsets[0] })
	br := bufio.NewReaderSize(r, 1<<20)
	var pos int64
	out := make([]Tensor, 0, len(items))
	buf := make([]byte, 4096)
	for _, it := range items {
		if it.e.Offsets[0] != pos {
			return nil, nil, fmt.Errorf("safetensors: tensor %q starts at byte %d of the data, want %d (gap or overlap)", it.name, it.e.Offsets[0], pos)
		}
		size := dtypeSize[it.e.DType]
		count := int((it.e.Offsets[1] - it.e.Offsets[0]) / int64(size))
		data := make([]float32, 0, min(count, 1<<20)) // grows only as data actually arrives
		for remaining := count; remaining > 0; {
			k := min(remaining*size, len(buf))
			if _, err := io.ReadFull(br, buf[:k]); err != nil {
				return nil, nil, fmt.Errorf("safetensors: tensor %q: %w", it.name, truncated(err))
			}
			for i := 0; i < k; i += size {
				data = append(data, decode(it.e.DType, buf[i:]))
			}
			remaining -= k / size
		}
		pos = it.e.Offsets[1]
		t := Tensor{Name: it.name, Shape: it.e.Shape, Data: data}
		if it.e.DType != "F32" {
			t.DType = it.e.DType
		}
		out = append(out, t)
	}
	return out, meta, nil
}

func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("file is truncated")
	}
	return err
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// dtypeSize is the element size of each dtype the reader accepts.
var dtypeSize = map[string]int{"F32": 4, "F16": 2, "BF16": 2, "I8": 1}

// decode converts one little-endian element to float32.
func decode(dtype string, b []byte) float32 {
	switch dtype {
	case "F16":
		return float16(binary.LittleEndian.Uint16(b))
	case "BF16": // the top half of a float32
		return math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16)
	case "I8":
		return float32(int8(b[0]))
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

// float16 converts IEEE 754 binary16 bits to float32 (exactly: every
// half-precision value, subnormals included, is a float32).
func float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac·2^−24
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}
