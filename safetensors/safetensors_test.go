package safetensors

import (
	"bytes"
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"
)

func sample() []Tensor {
	return []Tensor{
		{Name: "conv.weight", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, 0, 1e-7, -1e30}},
		{Name: "bias", Shape: []int{2}, Data: []float32{0.5, -0.25}},
		{Name: "scalar", Shape: []int{}, Data: []float32{42}},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	meta := map[string]string{"as2": `{"model":"cosinet"}`}
	if err := Write(&buf, sample(), meta); err != nil {
		t.Fatal(err)
	}
	hlen := binary.LittleEndian.Uint64(buf.Bytes()[:8])
	if hlen%8 != 0 {
		t.Errorf("header length %d is not padded to 8", hlen)
	}
	got, gotMeta, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) || !reflect.DeepEqual(gotMeta, meta) {
		t.Fatalf("round trip:\n%+v %v", got, gotMeta)
	}
}

func TestReadErrors(t *testing.T) {
	var good bytes.Buffer
	Write(&good, sample(), nil)
	header := func(js string) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, uint64(len(js)))
		return append(b, js...)
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "reading header length"},
		{"huge header", []byte{0, 0, 0, 0, 0, 0, 0, 1}, "larger than"},
		{"truncated header", good.Bytes()[:20], "truncated"},
		{"truncated data", good.Bytes()[:good.Len()-3], "truncated"},
		{"bad json", header("{"), "malformed header"},
		{"dtype", header(`{"a": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}}`), `dtype "I64"`},
		{"offsets", header(`{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}`), "do not hold shape"},
		{"negative", header(`{"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, -4]}}`), "negative dimension"},
		{"gap", header(`{"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}`), "gap or overlap"},
		{"overlap", append(header(`{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}`), 0, 0, 0, 0, 0, 0, 0, 0), "gap or overlap"},
		{"metadata", header(`{"__metadata__": {"a": 1}}`), "not a map of strings"},
		{"huge shape", header(`{"a": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 4]}}`), "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Read(bytes.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	for _, ts := range [][]Tensor{
		{{Name: "a", Shape: []int{2}, Data: []float32{1}}},
		{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []float32{1}}},
		{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}},
	} {
		if err := Write(&bytes.Buffer{}, ts, nil); err == nil {
			t.Errorf("Write(%+v) accepted bad tensors", ts)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	Write(&buf, sample(), map[string]string{"k": "v"})
	f.Add(buf.Bytes())
	f.Add([]byte{8, 0, 0, 0, 0, 0, 0, 0, '{', '}', ' ', ' ', ' ', ' ', ' ', ' '})
	f.Fuzz(func(t *testing.T, in []byte) {
		ts, meta, err := Read(bytes.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, ts, meta); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		back, backMeta, err := Read(&out)
		if err != nil || len(back) != len(ts) || len(backMeta) != len(meta) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func TestInt8RoundTrip(t *testing.T) {
	in := []Tensor{
		{Name: "q", Shape: []int{2, 3}, Data: []float32{-128, 127, 0, 5, -7, 1}, DType: "I8"},
		{Name: "scale", Shape: []int{2}, Data: []float32{0.5, 1e-3}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, in, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip: %+v", got)
	}
	for _, bad := range []float32{128, 0.5, -129} {
		err := Write(io.Discard, []Tensor{{Name: "q", Shape: []int{1}, Data: []float32{bad}, DType: "I8"}}, nil)
		if err == nil || !strings.Contains(err.Error(), "not an int8") {
			t.Errorf("int8 %v: got %v", bad, err)
		}
	}
	if err := Write(io.Discard, []Tensor{{Name: "q", Shape: []int{1}, Data: []float32{1}, DType: "I4"}}, nil); err == nil {
		t.Error("writing I4: no error")
	}
}
