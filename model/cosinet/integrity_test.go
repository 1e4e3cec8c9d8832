package cosinet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/as2/as2/model"
)

// TestFlippedBitsAreRefused flips one bit in every byte of the header (the
// length, the tensor table and the configuration) and in a byte of every
// tensor of a tiny model's file: each file must be refused, none may load.
func TestFlippedBitsAreRefused(t *testing.T) {
	m := tiny(t, tinyHyper("birnn"), 3)
	var buf bytes.Buffer
	if err := model.Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
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
	for at := 0; at < 8+n; at++ {
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
