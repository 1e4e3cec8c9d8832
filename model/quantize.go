package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/as2/as2/safetensors"
)

// Int8Key is the safetensors metadata key listing, as a JSON array, the
// tensors of a quantised model file stored as int8 (see WriteInt8). Each
// has its per-row scales in the tensor Int8ScalePrefix + name.
const Int8Key = "as2_int8"

// Int8ScalePrefix starts the name of a quantised tensor's scale tensor.
const Int8ScalePrefix = "int8_scale:"

// Int8MinSize is the least number of values a matrix needs to be
// quantised by WriteInt8: biases, LayerNorm gains and other small tensors
// stay float32, where they cost little and rounding would cost most.
const Int8MinSize = 4096

// WriteInt8 writes m like Write, but stores each matrix of at least
// Int8MinSize values as int8 with one float32 scale per row (the first
// dimension): v ≈ scale·q, q = round(v/scale), scale = max|row|/127. The
// file is about a quarter of Write's size; the model reads back with the
// dequantised values, so Read needs no option, and the integrity digests
// cover those values: a flipped bit in an int8 or in a scale is refused
// like any other.
func WriteInt8(w io.Writer, m Model) error {
	return write(w, m, true)
}

// quantizeRows splits t into its int8 tensor and its scales, and returns the
// values a reader will see.
func quantizeRows(t safetensors.Tensor) (q, scales safetensors.Tensor, deq []float32) {
	rows := t.Shape[0]
	cols := len(t.Data) / rows
	q = safetensors.Tensor{Name: t.Name, Shape: t.Shape, Data: make([]float32, len(t.Data)), DType: "I8"}
	scales = safetensors.Tensor{Name: Int8ScalePrefix + t.Name, Shape: []int{rows}, Data: make([]float32, rows)}
	deq = make([]float32, len(t.Data))
	for r := range rows {
		row := t.Data[r*cols : (r+1)*cols]
		var amax float32
		for _, v := range row {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		s := amax / 127
		scales.Data[r] = s
		if s == 0 {
			continue
		}
		for c, v := range row {
			k := float32(math.Round(float64(v / s)))
			if k == 0 {
				k = 0 // not -0: the file's int8 has no sign for zero
			}
			q.Data[r*cols+c] = k
			deq[r*cols+c] = k * s
		}
	}
	return q, scales, deq
}

// quantizable reports whether WriteInt8 stores t as int8.
func quantizable(t safetensors.Tensor) bool {
	return len(t.Shape) >= 2 && t.Shape[0] > 0 && len(t.Data) >= Int8MinSize
}

// dequantize replaces the int8 tensors listed in meta[Int8Key] by their
// float32 values and drops the scale tensors, so that the rest of Read
// sees a float32 file.
func dequantize(tensors []safetensors.Tensor, meta map[string]string) ([]safetensors.Tensor, error) {
	list, ok := meta[Int8Key]
	if !ok {
		for _, t := range tensors {
			if t.DType == "I8" {
				return nil, fmt.Errorf("tensor %q is int8 but the file lists no quantised tensors: the file is corrupt", t.Name)
			}
		}
		return tensors, nil
	}
	var names []string
	if err := json.Unmarshal([]byte(list), &names); err != nil {
		return nil, errors.New("the list of int8 tensors is unreadable: the file is corrupt")
	}
	byName := make(map[string]int, len(tensors))
	for i, t := range tensors {
		byName[t.Name] = i
	}
	drop := map[int]bool{}
	for _, name := range names {
		i, ok := byName[name]
		j, sok := byName[Int8ScalePrefix+name]
		if !ok || !sok {
			return nil, fmt.Errorf("int8 tensor %q or its scales are missing: the file is corrupt", name)
		}
		t, s := &tensors[i], tensors[j]
		if t.DType != "I8" || len(t.Shape) < 2 || t.Shape[0] == 0 || s.DType != "" || !slices.Equal(s.Shape, []int{t.Shape[0]}) {
			return nil, fmt.Errorf("int8 tensor %q: shape %v or its scales' %v do not fit: the file is corrupt", name, t.Shape, s.Shape)
		}
		cols := len(t.Data) / t.Shape[0]
		for k := range t.Data {
			t.Data[k] *= s.Data[k/cols]
		}
		t.DType = ""
		drop[j] = true
	}
	out := tensors[:0]
	for i, t := range tensors {
		if t.DType == "I8" {
			return nil, fmt.Errorf("tensor %q is int8 but not listed as quantised: the file is corrupt", t.Name)
		}
		if !drop[i] {
			out = append(out, t)
		}
	}
	return out, nil
}
