package uselite

import (
	"fmt"
	"strings"
)

// The graph of model.json, as far as the Go forward pass depends on it (see
// graph.md for the whole op sequence). Rather than trusting weight names,
// Load follows the graph: every parameter and hyper-parameter is the input
// of a named compute node, and the dataflow edges that fix the order of
// operations (residual connections, pre-norm, the doubled embedding) are
// checked, so a model.json with another structure is refused instead of
// silently computing something else.

const (
	kona   = "module_apply_default/Encoder_en/KonaTransformer/"
	stack  = kona + "Encode/TransformerStack/"
	hidden = "module_apply_default/Encoder_en/hidden_layers/"
)

// layerNode names a node of transformer layer l (0 or 1).
func layerNode(l int, rest string) string {
	return fmt.Sprintf("%sLayer_%d/TransformerLayer/%s", stack, l, rest)
}

// edge says: node Node has op Op and its input In is the node From. When
// Param is set, From is not fixed: it is a weight, which becomes the named
// parameter; when Const is set, the weight is a hyper-parameter.
type edge struct {
	Node, Op string
	In       int
	From     string // expected producer ("" for weights)
	Param    string // parameter name in Params
	Const    string // hyper-parameter key
}

// paramEdges: where each trainable tensor enters the graph.
func paramEdges() []edge {
	es := []edge{
		{Node: kona + "Encode/embedding_lookup", Op: "GatherV2", In: 0, Param: "embeddings"},
		{Node: layerNode(0, "AdjustResidualInput/dense/MatMul"), Op: "MatMul", In: 1, Param: "layer0.input_proj.weight"},
		{Node: layerNode(0, "AdjustResidualInput/dense/BiasAdd"), Op: "BiasAdd", In: 1, Param: "layer0.input_proj.bias"},
	}
	for l := 0; l < 2; l++ {
		p := fmt.Sprintf("layer%d.", l)
		es = append(es,
			edge{Node: layerNode(l, "layer_prepostprocess/layer_norm/mul"), Op: "Mul", In: 0, Param: p + "attn_norm.gain"},
			edge{Node: layerNode(l, "layer_prepostprocess/layer_norm/add_1"), Op: "Add", In: 1, Param: p + "attn_norm.bias"},
			edge{Node: layerNode(l, "MultiheadAttention/qkv_transform_single/Conv2D"), Op: "Conv2D", In: 1, Param: p + "qkv.weight"},
			edge{Node: layerNode(l, "MultiheadAttention/qkv_transform_single/BiasAdd"), Op: "BiasAdd", In: 1, Param: p + "qkv.bias"},
			edge{Node: layerNode(l, "MultiheadAttention/output_transform_single/Conv2D"), Op: "Conv2D", In: 1, Param: p + "attn_out.weight"},
			edge{Node: layerNode(l, "MultiheadAttention/output_transform_single/BiasAdd"), Op: "BiasAdd", In: 1, Param: p + "attn_out.bias"},
			edge{Node: layerNode(l, "FFN/layer_prepostprocess/layer_norm/mul"), Op: "Mul", In: 0, Param: p + "ffn_norm.gain"},
			edge{Node: layerNode(l, "FFN/layer_prepostprocess/layer_norm/add_1"), Op: "Add", In: 1, Param: p + "ffn_norm.bias"},
			edge{Node: layerNode(l, "FFN/conv1/Tensordot/MatMul"), Op: "MatMul", In: 1, Param: p + "ffn1.weight"},
			edge{Node: layerNode(l, "FFN/conv1/BiasAdd"), Op: "BiasAdd", In: 1, Param: p + "ffn1.bias"},
			edge{Node: layerNode(l, "FFN/conv2/Tensordot/MatMul"), Op: "MatMul", In: 1, Param: p + "ffn2.weight"},
			edge{Node: layerNode(l, "FFN/conv2/BiasAdd"), Op: "BiasAdd", In: 1, Param: p + "ffn2.bias"},
		)
	}
	return append(es,
		edge{Node: hidden + "tanh_layer_0/MatMul", Op: "MatMul", In: 1, Param: "pool.weight"},
		edge{Node: hidden + "tanh_layer_0/BiasAdd", Op: "BiasAdd", In: 1, Param: "pool.bias"},
	)
}

// constEdges: where each hyper-parameter enters the graph.
func constEdges() []edge {
	es := []edge{
		{Node: kona + "ClipToMaxLength/Less", Op: "Less", In: 1, Const: "max_len"},
		{Node: kona + "Encode/SparseToDense", Op: "SparseToDense", In: 3, Const: "sparse_default"},
		{Node: stack + "Layer_0/AddTimingSignal/TimingSignal/mul_2", Op: "Mul", In: 1, Const: "inv_timescales"},
		{Node: hidden + "l2_normalize/Maximum", Op: "Maximum", In: 1, Const: "l2_eps"},
	}
	for l := 0; l < 2; l++ {
		p := fmt.Sprintf("layer%d.", l)
		shape := layerNode(l, "MultiheadAttention/split_heads/split_last_dimension/Reshape/shape")
		es = append(es,
			edge{Node: layerNode(l, "layer_prepostprocess/layer_norm/add"), Op: "Add", In: 1, Const: p + "attn_norm.eps"},
			edge{Node: layerNode(l, "FFN/layer_prepostprocess/layer_norm/add"), Op: "Add", In: 1, Const: p + "ffn_norm.eps"},
			edge{Node: layerNode(l, "MultiheadAttention/split"), Op: "SplitV", In: 1, Const: p + "qkv_split"},
			edge{Node: shape, Op: "Pack", In: 2, Const: p + "heads"},
			edge{Node: shape, Op: "Pack", In: 3, Const: p + "head_depth"},
			edge{Node: layerNode(l, "MultiheadAttention/mul"), Op: "Mul", In: 1, Const: p + "q_scale"},
		)
	}
	return es
}

// structureEdges: the dataflow that fixes the order of operations we
// implement in model.go.
func structureEdges() []edge {
	ts := stack + "Layer_0/AddTimingSignal/"
	es := []edge{
		// Layer_0/add = embeddings + (embeddings + timing signal).
		{Node: ts + "TimingSignal/concat", Op: "ConcatV2", In: 0, From: ts + "TimingSignal/Sin"},
		{Node: ts + "TimingSignal/concat", Op: "ConcatV2", In: 1, From: ts + "TimingSignal/Cos"},
		{Node: ts + "add", Op: "Add", In: 0, From: ts + "Gather/GatherNd"},
		{Node: ts + "add", Op: "Add", In: 1, From: ts + "TimingSignal/concat"},
		{Node: ts + "Gather/GatherNd", Op: "GatherNd", In: 0, From: kona + "Encode/Scatter/ScatterNd"},
		{Node: stack + "Layer_0/add", Op: "Add", In: 0, From: kona + "Encode/Scatter/ScatterNd"},
		{Node: stack + "Layer_0/add", Op: "Add", In: 1, From: ts + "Scatter/ScatterNd"},
		// Layer 0 normalises its input and projects it (256 -> 512) for the residual.
		{Node: layerNode(0, "layer_prepostprocess/layer_norm/Mean"), Op: "Mean", In: 0, From: stack + "Layer_0/add"},
		{Node: layerNode(0, "AdjustResidualInput/Gather/GatherNd"), Op: "GatherNd", In: 0, From: stack + "Layer_0/add"},
		{Node: layerNode(0, "layer_postprocess/add"), Op: "Add", In: 1, From: layerNode(0, "AdjustResidualInput/Scatter/ScatterNd")},
		// Layer 1 takes layer 0's output and adds it back unchanged.
		{Node: layerNode(1, "layer_prepostprocess/layer_norm/Mean"), Op: "Mean", In: 0, From: layerNode(0, "FFN/layer_postprocess/add")},
		{Node: layerNode(1, "layer_postprocess/add"), Op: "Add", In: 1, From: layerNode(0, "FFN/layer_postprocess/add")},
		// Mean pooling of layer 1's output, then the tanh layer and l2 normalisation.
		{Node: kona + "mul", Op: "Mul", In: 0, From: layerNode(1, "FFN/layer_postprocess/add")},
		{Node: kona + "div", Op: "RealDiv", In: 0, From: kona + "Sum"},
		{Node: hidden + "tanh_layer_0/MatMul", Op: "MatMul", In: 0, From: kona + "div"},
		{Node: hidden + "tanh_layer_0/Tanh", Op: "Tanh", In: 0, From: hidden + "tanh_layer_0/BiasAdd"},
		{Node: hidden + "l2_normalize", Op: "Mul", In: 0, From: hidden + "tanh_layer_0/Tanh"},
	}
	for l := 0; l < 2; l++ {
		mha := layerNode(l, "MultiheadAttention/")
		dpa := mha + "DotProductAttention/BaseDotProductAttention/"
		es = append(es,
			// Pre-norm attention: q is scaled before Q·Kᵀ.
			edge{Node: mha + "ExpandDims", Op: "ExpandDims", In: 0, From: layerNode(l, "layer_prepostprocess/layer_norm/add_1")},
			edge{Node: mha + "split_heads/split_last_dimension/Reshape", Op: "Reshape", In: 0, From: mha + "split"},
			edge{Node: mha + "split_heads_1/split_last_dimension/Reshape", Op: "Reshape", In: 0, From: mha + "split:1"},
			edge{Node: mha + "split_heads_2/split_last_dimension/Reshape", Op: "Reshape", In: 0, From: mha + "split:2"},
			edge{Node: mha + "mul", Op: "Mul", In: 0, From: mha + "split_heads/transpose"},
			edge{Node: dpa + "MatMul", Op: "BatchMatMul", In: 0, From: mha + "mul"},
			edge{Node: dpa + "MatMul", Op: "BatchMatMul", In: 1, From: mha + "split_heads_1/transpose"},
			edge{Node: dpa + "Softmax", Op: "Softmax", In: 0, From: dpa + "Reshape"},
			edge{Node: dpa + "MatMul_1", Op: "BatchMatMul", In: 1, From: mha + "split_heads_2/transpose"},
			edge{Node: layerNode(l, "layer_postprocess/add"), Op: "Add", In: 0, From: mha + "Squeeze_1"},
			// Pre-norm FFN with ReLU, added to the attention block's output.
			edge{Node: layerNode(l, "FFN/layer_prepostprocess/layer_norm/Mean"), Op: "Mean", In: 0, From: layerNode(l, "layer_postprocess/add")},
			edge{Node: layerNode(l, "FFN/conv1/Relu"), Op: "Relu", In: 0, From: layerNode(l, "FFN/conv1/BiasAdd")},
			edge{Node: layerNode(l, "FFN/conv2/Tensordot/Reshape"), Op: "Reshape", In: 0, From: layerNode(l, "FFN/conv1/Relu")},
			edge{Node: layerNode(l, "FFN/layer_postprocess/add"), Op: "Add", In: 0, From: layerNode(l, "FFN/Scatter/ScatterNd")},
			edge{Node: layerNode(l, "FFN/layer_postprocess/add"), Op: "Add", In: 1, From: layerNode(l, "layer_postprocess/add")},
		)
	}
	return es
}

// inputName strips a TF input reference to its node name ("^x" is a
// control dependency, "x:1" the second output); the output index is kept
// for split nodes, which the edges name explicitly.
func inputName(s string) string {
	s = strings.TrimPrefix(s, "^")
	return strings.TrimSuffix(s, ":0")
}

// resolve checks every edge against the graph and returns, for each
// parameter and hyper-parameter, the weight feeding it.
func resolve(nodes []Node, weights map[string]*Weight) (params, consts map[string]*Weight, err error) {
	byName := make(map[string]*Node, len(nodes))
	for i := range nodes {
		byName[nodes[i].Name] = &nodes[i]
	}
	input := func(e edge) (string, error) {
		n, ok := byName[e.Node]
		if !ok {
			return "", fmt.Errorf("uselite: graph has no node %s (not the USE-Lite graph?)", e.Node)
		}
		if n.Op != e.Op {
			return "", fmt.Errorf("uselite: graph node %s is %s, want %s", e.Node, n.Op, e.Op)
		}
		if e.In >= len(n.Input) {
			return "", fmt.Errorf("uselite: graph node %s has %d inputs, want input %d", e.Node, len(n.Input), e.In)
		}
		return inputName(n.Input[e.In]), nil
	}
	for _, e := range structureEdges() {
		from, err := input(e)
		if err != nil {
			return nil, nil, err
		}
		if from != e.From {
			return nil, nil, fmt.Errorf("uselite: graph node %s input %d is %s, want %s: the graph's structure differs from the one implemented", e.Node, e.In, from, e.From)
		}
	}
	weight := func(e edge) (*Weight, error) {
		from, err := input(e)
		if err != nil {
			return nil, err
		}
		w, ok := weights[from]
		if !ok {
			return nil, fmt.Errorf("uselite: graph node %s input %d: %s is not in the weights manifest", e.Node, e.In, from)
		}
		return w, nil
	}
	params, consts = map[string]*Weight{}, map[string]*Weight{}
	for _, e := range paramEdges() {
		w, err := weight(e)
		if err != nil {
			return nil, nil, err
		}
		if w.F32 == nil {
			return nil, nil, fmt.Errorf("uselite: weight %s (%s) is %s, want float32", w.Name, e.Param, w.Dtype)
		}
		params[e.Param] = w
	}
	for _, e := range constEdges() {
		w, err := weight(e)
		if err != nil {
			return nil, nil, err
		}
		consts[e.Const] = w
	}
	return params, consts, nil
}

// scalarInt reads an int32 hyper-parameter with one element.
func scalarInt(consts map[string]*Weight, key string) (int, error) {
	w := consts[key]
	if w == nil || len(w.I32) != 1 {
		return 0, fmt.Errorf("uselite: hyper-parameter %s: want one int32", key)
	}
	return int(w.I32[0]), nil
}

// scalarFloat reads a float32 hyper-parameter with one element.
func scalarFloat(consts map[string]*Weight, key string) (float64, error) {
	w := consts[key]
	if w == nil || len(w.F32) != 1 {
		return 0, fmt.Errorf("uselite: hyper-parameter %s: want one float32", key)
	}
	return float64(w.F32[0]), nil
}
