package cosinet

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model"
	"github.com/as2/as2/safetensors"
)

// TestFlippedBitsAreRefused flips one bit in every byte of the header (the
// length, the tensor table and the configuration) and in a byte of every
// tensor of a tiny model's file, as written by model.Write and by
// model.WriteInt8 (whose int8 tensors and scales are covered too): each file
// must be refused, none may load.
func TestFlippedBitsAreRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		m     *Model
		write func(io.Writer, model.Model) error
	}{
		{"float32", tiny(t, tinyHyper("birnn"), 3), model.Write},
		// Quantised, a larger model: the header's digests are the same
		// code as float32's; the int8 tensors and their scales are new.
		{"int8", tiny(t, int8Hyper(), 3), model.WriteInt8},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.write(&buf, c.m); err != nil {
				t.Fatal(err)
			}
			flippedBitsAreRefused(t, buf.Bytes(), c.name == "float32")
		})
	}
}

// flippedBitsAreRefused flips bits in good, the bytes of a model file: in
// every header byte when header, and in the first, middle and last byte
// of every tensor.
func flippedBitsAreRefused(t *testing.T, good []byte, header bool) {
	if _, err := model.Read(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	n := int(binary.LittleEndian.Uint64(good))
	var table map[string]json.RawMessage
	if err := json.Unmarshal(good[8:8+n], &table); err != nil {
		t.Fatal(err)
	}
	type region struct {
		name   string
		lo, hi int
	}
	regions := []region{}
	for name, raw := range table {
		if name == "__metadata__" {
			continue
		}
		var e struct {
			Offsets [2]int `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		regions = append(regions, region{"tensor " + name, 8 + n + e.Offsets[0], 8 + n + e.Offsets[1]})
	}
	sort.Slice(regions, func(a, b int) bool { return regions[a].lo < regions[b].lo })
	if len(regions) < 5 {
		t.Fatalf("only %d tensors", len(regions))
	}
	flip := func(at int, bit byte) error {
		bad := bytes.Clone(good)
		bad[at] ^= bit
		_, err := model.Read(bytes.NewReader(bad))
		return err
	}
	// Every byte of the header, with two different bits.
	for at := 0; header && at < 8+n; at++ {
		for _, bit := range []byte{0x01, 0x20} {
			if err := flip(at, bit); err == nil {
				t.Errorf("header byte %d (%q) with bit %#x flipped: the file loaded", at, good[max(at-20, 0):min(at+20, 8+n)], bit)
			}
		}
	}
	// The first, middle and last byte of every tensor.
	for _, r := range regions {
		for _, at := range []int{r.lo, (r.lo + r.hi) / 2, r.hi - 1} {
			err := flip(at, 0x01)
			if err == nil {
				t.Errorf("%s: byte %d flipped: the file loaded", r.name, at)
			} else if !strings.Contains(err.Error(), "corrupt") && !strings.Contains(err.Error(), "weights") {
				t.Errorf("%s: byte %d flipped: unclear error %v", r.name, at, err)
			}
		}
	}
}

// TestWrongParamCountIsRefused checks the configuration's parameter count
// against the parameters the file loads, in every format.
func TestWrongParamCountIsRefused(t *testing.T) {
	m := tiny(t, tinyHyper(""), 3)
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	// The configuration is a JSON string inside the header: its quotes are
	// escaped. The count changes in its last digit, so the length stays.
	want := `\"params\":` + itoa(m.Params().Count())
	last := want[len(want)-1]
	bad := bytes.Replace(buf.Bytes(), []byte(want), []byte(want[:len(want)-1]+string('0'+(last-'0'+1)%10)), 1)
	if bytes.Equal(bad, buf.Bytes()) {
		t.Fatal("no params field to change")
	}
	if _, err := model.Read(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("wrong parameter count: %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// int8Hyper is a tiny Cosinet whose convolutions are large enough
// (model.Int8MinSize values) for model.WriteInt8 to quantise them.
func int8Hyper() Hyper {
	h := tinyHyper("birnn")
	h.Filters = 512
	return h
}

// TestInt8RoundTrip checks model.WriteInt8: a smaller file with int8
// tensors, which loads with the dequantised weights and scores close to the
// float32 model.
func TestInt8RoundTrip(t *testing.T) {
	m := tiny(t, int8Hyper(), 3)
	var f32, i8 bytes.Buffer
	if err := model.Write(&f32, m); err != nil {
		t.Fatal(err)
	}
	if err := model.WriteInt8(&i8, m); err != nil {
		t.Fatal(err)
	}
	if i8.Len() > f32.Len()/2 {
		t.Errorf("int8 file %d bytes, float32 %d", i8.Len(), f32.Len())
	}
	_, meta, err := safetensors.Read(bytes.NewReader(i8.Bytes()))
	if err != nil || meta[model.Int8Key] == "" || meta[model.Int8Key] == "[]" {
		t.Fatalf("no int8 tensors listed: %v %q", err, meta[model.Int8Key])
	}
	back, err := model.Read(&i8)
	if err != nil {
		t.Fatal(err)
	}
	q := encodertest.Question()
	want, err := m.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Score(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); d > 0.05*(1+math.Abs(want[i])) || math.IsNaN(d) {
			t.Errorf("candidate %d: int8 %v, float32 %v", i, got[i], want[i])
		}
	}
}
