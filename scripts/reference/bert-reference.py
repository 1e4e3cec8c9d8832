#!/usr/bin/python3
"""Tiny random BERT checkpoints and reference outputs for encoder/bert.

Builds two tiny, seeded, random BERTs (Devlin et al. 2019) in the Hugging
Face layout -- config.json plus model.safetensors -- one "BertModel" (tensor
names without prefix, float32) and one "BertForSequenceClassification"
(names under "bert.", a 2-label classifier, stored as float16), and writes
what a plain-PyTorch forward pass computes for a few sequences to
expected.json. The forward pass is written out from the paper's equations,
not taken from the transformers library: embeddings (word + position +
token type) and LayerNorm, post-norm layers with exact (erf) GELU, an
additive attention mask for padding, the tanh pooler on [CLS] and the
classifier.

Usage (Debian's PyTorch: apt-get install python3-torch):

    /usr/bin/python3 scripts/reference/bert-reference.py [encoder/bert/testdata]

The safetensors files are written by the small writer below (struct +
json), so the safetensors package is not needed.
"""

import json
import math
import os
import struct
import sys

import torch

VOCAB, HIDDEN, LAYERS, HEADS, INTER, MAXPOS, TYPES = 100, 32, 2, 4, 64, 64, 2
EPS = 1e-12

# Five sequences of different lengths; the last is a sentence pair with
# token types 0 and 1 ([CLS] a [SEP] b [SEP]).
CLS, SEP = 2, 3
SEQUENCES = [
    ([CLS, 17, 45, 9, 88, 23, SEP], None),
    ([CLS, 51, SEP], None),
    ([CLS, 5, 60, 61, 62, 99, 12, 13, 40, 41, 77, SEP], None),
    ([CLS], None),
    ([CLS, 30, 31, 32, SEP, 70, 71, 72, 73, SEP], [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]),
]


def random_encoder(gen, prefix, vocab=VOCAB, maxpos=MAXPOS, types=TYPES, embedding_std=0.5):
    """Random embeddings and layers under Hugging Face names (after prefix),
    as float32 tensors [out, in], and the maker of the linear layers on top
    (it takes whole names). roberta-reference.py builds its encoder with
    this too."""
    w = {}

    def normal(name, *shape, std=0.2, mean=0.0):
        w[name] = (torch.randn(*shape, generator=gen, dtype=torch.float64) * std + mean).float()

    def linear(name, out, inp):
        normal(name + ".weight", out, inp, std=1 / math.sqrt(inp))
        normal(name + ".bias", out, std=0.1)

    def layernorm(name):
        normal(name + ".weight", HIDDEN, std=0.1, mean=1.0)
        normal(name + ".bias", HIDDEN, std=0.1)

    normal(prefix + "embeddings.word_embeddings.weight", vocab, HIDDEN, std=embedding_std)
    normal(prefix + "embeddings.position_embeddings.weight", maxpos, HIDDEN, std=embedding_std)
    normal(prefix + "embeddings.token_type_embeddings.weight", types, HIDDEN, std=embedding_std)
    layernorm(prefix + "embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"{prefix}encoder.layer.{i}."
        for part in ("query", "key", "value"):
            linear(p + "attention.self." + part, HIDDEN, HIDDEN)
        linear(p + "attention.output.dense", HIDDEN, HIDDEN)
        layernorm(p + "attention.output.LayerNorm")
        linear(p + "intermediate.dense", INTER, HIDDEN)
        linear(p + "output.dense", HIDDEN, INTER)
        layernorm(p + "output.LayerNorm")
    return w, linear


def random_bert(gen, prefix, num_labels=0):
    """Random weights under Hugging Face names, as float32 tensors [out, in]."""
    w, linear = random_encoder(gen, prefix)
    linear(prefix + "pooler.dense", HIDDEN, HIDDEN)
    if num_labels:
        w["classifier.weight"] = (torch.randn(num_labels, HIDDEN, generator=gen, dtype=torch.float64) / math.sqrt(HIDDEN)).float()
        w["classifier.bias"] = (torch.randn(num_labels, generator=gen, dtype=torch.float64) * 0.1).float()
    return w


def write_safetensors(path, tensors, dtype):
    """Minimal safetensors writer: 8-byte header length, JSON header, data."""
    codes = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(tensors):
        t = tensors[name].to(dtype).contiguous()
        data = t.view(torch.int16).numpy().tobytes() if t.element_size() == 2 else t.numpy().tobytes()
        header[name] = {"dtype": codes[dtype], "shape": list(t.shape), "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    js = json.dumps(header, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(js)))
        f.write(js)
        for b in blobs:
            f.write(b)


def config(architecture, num_labels=0):
    c = {
        "architectures": [architecture],
        "model_type": "bert",
        "vocab_size": VOCAB,
        "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS,
        "num_attention_heads": HEADS,
        "intermediate_size": INTER,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": MAXPOS,
        "type_vocab_size": TYPES,
        "initializer_range": 0.02,
        "layer_norm_eps": EPS,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
    }
    if num_labels:
        c["id2label"] = {str(i): f"LABEL_{i}" for i in range(num_labels)}
        c["label2id"] = {f"LABEL_{i}": i for i in range(num_labels)}
        c["torch_dtype"] = "float16"
    return c


def layer_norm(x, w, b, eps=EPS):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def layers(g, x, add, eps=EPS, lin=None, hidden=HIDDEN, n_layers=LAYERS, n_heads=HEADS):
    """The post-norm layers over x [B, T, H]; g holds float64 weights under
    names without prefix, add is the additive attention mask [B, 1, 1, T]
    (or 0). roberta-reference.py runs its layers with this too, and
    scripts/peers/families.py at base sizes, with its own lin(y, name)
    (float32 or int8 nn.Linear modules)."""
    B, T, _ = x.shape
    if lin is None:
        lin = lambda y, n: y @ g[n + ".weight"].T + g[n + ".bias"]
    dh = hidden // n_heads
    for i in range(n_layers):
        n = f"encoder.layer.{i}."
        heads = lambda y: y.view(B, T, n_heads, dh).transpose(1, 2)  # [B, h, T, dh]
        q, k, v = (heads(lin(x, n + "attention.self." + s)) for s in ("query", "key", "value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh) + add  # Vaswani et al. eq. 1
        ctx = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(B, T, hidden)
        x = layer_norm(x + lin(ctx, n + "attention.output.dense"),
                       g[n + "attention.output.LayerNorm.weight"], g[n + "attention.output.LayerNorm.bias"], eps)
        h = gelu(lin(x, n + "intermediate.dense"))
        x = layer_norm(x + lin(h, n + "output.dense"), g[n + "output.LayerNorm.weight"], g[n + "output.LayerNorm.bias"], eps)
    return x


def forward(w, p, ids, types, mask):
    """BERT over a padded batch: ids, types [B, T]; mask [B, T] (1 = real).
    Returns the final hidden states [B, T, H] in float64."""
    g = {k[len(p):]: v.double() for k, v in w.items() if k.startswith(p)}
    B, T = ids.shape
    pos = torch.arange(T)
    x = g["embeddings.word_embeddings.weight"][ids] + g["embeddings.position_embeddings.weight"][pos] \
        + g["embeddings.token_type_embeddings.weight"][types]
    x = layer_norm(x, g["embeddings.LayerNorm.weight"], g["embeddings.LayerNorm.bias"])
    # Additive mask: padded keys get -inf before the softmax.
    add = torch.zeros(B, 1, 1, T, dtype=torch.float64).masked_fill(mask[:, None, None, :] == 0, float("-inf"))
    return layers(g, x, add), g


def run(w, prefix):
    """Per-sequence outputs, computed on the padded batch and checked
    against each sequence run alone."""
    T = max(len(s) for s, _ in SEQUENCES)
    B = len(SEQUENCES)
    ids = torch.zeros(B, T, dtype=torch.long)
    types = torch.zeros(B, T, dtype=torch.long)
    mask = torch.zeros(B, T, dtype=torch.long)
    for b, (s, ty) in enumerate(SEQUENCES):
        ids[b, :len(s)] = torch.tensor(s)
        if ty:
            types[b, :len(s)] = torch.tensor(ty)
        mask[b, :len(s)] = 1
    states, g = forward(w, prefix, ids, types, mask)
    out = []
    for b, (s, ty) in enumerate(SEQUENCES):
        n = len(s)
        alone, _ = forward(w, prefix, ids[b:b + 1, :n], types[b:b + 1, :n], mask[b:b + 1, :n])
        assert torch.allclose(alone[0], states[b, :n], atol=1e-10), "padding changed a real position"
        st = states[b, :n]
        cls = st[0]
        pooler = torch.tanh(cls @ g["pooler.dense.weight"].T + g["pooler.dense.bias"])
        r = {
            "ids": s,
            "types": ty,
            "states": st.tolist(),
            "cls": cls.tolist(),
            "mean": st.mean(0).tolist(),
            "max": st.max(0).values.tolist(),
            "pooler": pooler.tolist(),
        }
        if "classifier.weight" in w:
            r["logits"] = (pooler @ w["classifier.weight"].double().T + w["classifier.bias"].double()).tolist()
        out.append(r)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "encoder", "bert", "testdata")
    gen = torch.Generator().manual_seed(20190524)
    expected = {}

    base = random_bert(gen, "")
    d = os.path.join(root, "tiny-bert")
    os.makedirs(d, exist_ok=True)
    write_safetensors(os.path.join(d, "model.safetensors"), base, torch.float32)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config("BertModel"), f, indent=2)
    expected["tiny-bert"] = run(base, "")

    cls = random_bert(gen, "bert.", num_labels=2)
    # Stored in float16: the reference uses the rounded weights.
    cls = {k: v.half().float() for k, v in cls.items()}
    d = os.path.join(root, "tiny-bert-cls")
    os.makedirs(d, exist_ok=True)
    write_safetensors(os.path.join(d, "model.safetensors"), cls, torch.float16)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(config("BertForSequenceClassification", 2), f, indent=2)
    expected["tiny-bert-cls"] = run(cls, "bert.")

    with open(os.path.join(root, "expected.json"), "w") as f:
        json.dump({"torch": torch.__version__, "models": expected}, f)


if __name__ == "__main__":
    main()
