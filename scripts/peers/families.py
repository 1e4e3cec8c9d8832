#!/usr/bin/python3
"""PyTorch side of issue 60's speed table: each Hugging Face family as2
reads, at its base shape with random weights, scoring 32 pairs of 128
tokens as one batch, fp32 and after torch.quantization.quantize_dynamic
(int8 weights of every nn.Linear, per-token dynamic activations, fbgemm).

The shapes are those of model/crossencoder/families_bench_test.go
(BenchmarkFamilies), built the same way: the tensor names and shapes of
the family's tiny test checkpoint (encoder/*/testdata), each dimension
mapped to its base size, layers repeated to the base count, random values.
The forward passes are the reference scripts' (scripts/reference/*-reference.py,
which wrote those tiny checkpoints' expected outputs): their layer functions
take the sizes and a lin(...) that runs nn.Linear modules here, float32 or
int8; only the embeddings (a lookup and a LayerNorm) and the heads are
written out below. As in the Go benchmark, XLM-R's and DeBERTa-v3's
vocabularies are cut to 30522 (the lookup is not the cost).

It needs only Debian's python3-torch (1.13) and python3-sentencepiece (the
reference scripts import it), and prints one line per family and
precision: "torch <family> <fp32|int8> <pairs/s>".

    /usr/bin/python3 scripts/peers/families.py --threads 2 --repeats 2 [--only xlmr,deberta]
"""
import argparse
import importlib
import json
import math
import os
import re
import struct
import sys
import time

import torch
from torch import nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts", "reference"))
bert = importlib.import_module("bert-reference")
de = importlib.import_module("distilbert-electra-reference")
deb = importlib.import_module("deberta-reference")
mb = importlib.import_module("modernbert-reference")

VOCAB = 30522  # XLM-R's and DeBERTa-v3's vocabularies cut to BERT's
PAIRS, LENGTH = 32, 128

# name: (tiny checkpoint under encoder/, config fields set, layer-count key,
# tiny dimension -> base dimension, rows of position_embeddings, token
# types in the pairs, tensors dropped). As in families_bench_test.go.
FAMILIES = {
    "xlmr": ("roberta/testdata/tiny-xlm-roberta",
             dict(vocab_size=VOCAB, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                  intermediate_size=3072, max_position_embeddings=514),
             "num_hidden_layers", {1: 1, 32: 768, 64: 3072, 152: VOCAB}, 514, False, ()),
    "roberta": ("roberta/testdata/tiny-roberta",
                dict(vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                     intermediate_size=3072, max_position_embeddings=514),
                "num_hidden_layers", {1: 1, 2: 2, 32: 768, 64: 3072, 411: 50265}, 514, False, ()),
    "distilbert": ("distilbert/testdata/tiny-distilbert",
                   dict(vocab_size=VOCAB, dim=768, n_layers=6, n_heads=12, hidden_dim=3072,
                        max_position_embeddings=512),
                   "n_layers", {2: 2, 32: 768, 64: 3072, 182: VOCAB}, 512, False, ()),
    "electra": ("electra/testdata/tiny-electra",
                dict(vocab_size=VOCAB, embedding_size=768, hidden_size=768, num_hidden_layers=12,
                     num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512),
                "num_hidden_layers", {1: 1, 2: 2, 16: 768, 32: 768, 64: 3072, 182: VOCAB}, 512, True,
                ("embeddings_project.",)),
    "deberta": ("deberta/testdata/tiny-deberta-v2",
                dict(vocab_size=VOCAB, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                     intermediate_size=3072, max_position_embeddings=512, position_buckets=256,
                     max_relative_positions=512, pooler_hidden_size=768),
                "num_hidden_layers", {1: 1, 16: 512, 32: 768, 64: 3072, 151: VOCAB}, 0, False, ()),
    "modernbert": ("modernbert/testdata/tiny-modernbert",
                   dict(vocab_size=50368, hidden_size=768, num_hidden_layers=22, num_attention_heads=12,
                        intermediate_size=1152, max_position_embeddings=8192, local_attention=128,
                        global_attn_every_n_layers=3),
                   "num_hidden_layers", {2: 2, 32: 768, 48: 1152, 96: 2304, 424: 50368}, 0, False, ()),
}

LAYER = re.compile(r"\.layers?\.(\d+)\.")


def header(path):
    """{name: shape} of a safetensors file."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        h = json.loads(f.read(n))
    return {k: v["shape"] for k, v in h.items() if k != "__metadata__"}


def base_checkpoint(name, gen):
    """The family's config and random float32 weights at its base shape."""
    tiny, fields, layers_key, dims, maxpos, _, drop = FAMILIES[name]
    src = os.path.join(ROOT, "encoder", tiny)
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    cfg.update(fields)
    shapes = header(os.path.join(src, "model.safetensors"))
    tiny_layers = 1 + max(int(m.group(1)) for m in map(LAYER.search, shapes) if m)
    names = {k: k for k in shapes if not LAYER.search(k)}
    for i in range(cfg[layers_key]):
        src_i = str(min(i, tiny_layers - 1))  # ModernBERT's layer 0 has no attn_norm
        for k in shapes:
            m = LAYER.search(k)
            if m and m.group(1) == src_i:
                names[k[:m.start(1)] + str(i) + k[m.end(1):]] = k
    w = {}
    for new, old in names.items():
        if any(d in new for d in drop):
            continue
        shape = [maxpos if "position_embeddings" in new and j == 0 else dims[d] for j, d in enumerate(shapes[old])]
        std, mean = 0.1, 0.0
        if len(shape) == 2:
            std = 1 / math.sqrt(shape[1])
        elif "norm" in new.lower() and new.endswith(".weight"):
            mean = 1.0
        w[new] = torch.randn(*shape, generator=gen) * std + mean
    return cfg, w


class Linears(nn.Module):
    """The checkpoint's linear layers as nn.Linear modules, which
    quantize_dynamic can replace; every 2-D weight but the embeddings'."""

    def __init__(self, w):
        super().__init__()
        self.d = nn.ModuleDict()
        for k, v in w.items():
            if v.dim() == 2 and k.endswith(".weight") and "embeddings." not in k:
                n = k[: -len(".weight")]
                b = w.get(n + ".bias")
                m = nn.Linear(v.shape[1], v.shape[0], bias=b is not None)
                m.weight.data.copy_(v)
                if b is not None:
                    m.bias.data.copy_(b)
                self.d[n.replace(".", "__")] = m

    def __call__(self, name, y):
        return self.d[name.replace(".", "__")](y)


def strip(w, p):
    return {k[len(p):]: v for k, v in w.items() if k.startswith(p)}


def scorer(name, cfg, w, L):
    """The family's score of a batch (ids, types [B, T]): the logits."""
    H, heads = cfg.get("hidden_size", cfg.get("dim")), cfg.get("num_attention_heads", cfg.get("n_heads"))
    if name in ("xlmr", "roberta"):
        e, eps, pad = strip(w, "roberta."), cfg["layer_norm_eps"], cfg["pad_token_id"]

        def f(ids, types):
            pos = torch.arange(ids.shape[1]) + pad + 1  # no padding: positions count from pad + 1
            x = e["embeddings.word_embeddings.weight"][ids] + e["embeddings.position_embeddings.weight"][pos] \
                + e["embeddings.token_type_embeddings.weight"][types]
            x = bert.layer_norm(x, e["embeddings.LayerNorm.weight"], e["embeddings.LayerNorm.bias"], eps)
            x = bert.layers(e, x, 0, eps, lin=lambda y, n: L("roberta." + n, y), hidden=H,
                            n_layers=cfg["num_hidden_layers"], n_heads=heads)
            return L("classifier.out_proj", torch.tanh(L("classifier.dense", x[:, 0])))
    elif name == "distilbert":
        p = "distilbert."

        def f(ids, types):
            x = w[p + "embeddings.word_embeddings.weight"][ids] \
                + w[p + "embeddings.position_embeddings.weight"][torch.arange(ids.shape[1])]
            x = bert.layer_norm(x, w[p + "embeddings.LayerNorm.weight"], w[p + "embeddings.LayerNorm.bias"], de.EPS)
            x = de.distilbert_layers(w, x, 0, lin=lambda y, n: L(n, y), hidden=H, n_layers=cfg["n_layers"],
                                     n_heads=heads)
            return L("classifier", torch.relu(L("pre_classifier", x[:, 0])))
    elif name == "electra":
        e, eps = strip(w, "electra."), cfg["layer_norm_eps"]

        def f(ids, types):
            x = e["embeddings.word_embeddings.weight"][ids] \
                + e["embeddings.position_embeddings.weight"][torch.arange(ids.shape[1])] \
                + e["embeddings.token_type_embeddings.weight"][types]
            x = bert.layer_norm(x, e["embeddings.LayerNorm.weight"], e["embeddings.LayerNorm.bias"], eps)
            x = bert.layers(e, x, 0, eps, lin=lambda y, n: L("electra." + n, y), hidden=H,
                            n_layers=cfg["num_hidden_layers"], n_heads=heads)
            return L("classifier.out_proj", bert.gelu(L("classifier.dense", x[:, 0])))
    elif name == "deberta":
        p = "deberta."

        def f(ids, types):
            x = bert.layer_norm(w[p + "embeddings.word_embeddings.weight"][ids], w[p + "embeddings.LayerNorm.weight"],
                                w[p + "embeddings.LayerNorm.bias"], cfg["layer_norm_eps"])
            x = deb.layers(w, cfg, x, lin=L, hidden=H, n_layers=cfg["num_hidden_layers"], n_heads=heads)
            return L("classifier", deb.act(cfg["pooler_hidden_act"], L("pooler.dense", x[:, 0])))
    elif name == "modernbert":
        zero = torch.zeros(H)

        def ln(n, x):
            return bert.layer_norm(x, w[n + ".weight"], w.get(n + ".bias", zero), cfg["norm_eps"])

        def f(ids, types):
            x = ln("model.embeddings.norm", w["model.embeddings.tok_embeddings.weight"][ids])
            x = ln("model.final_norm", mb.layers(w, cfg, x, lin=L))
            head = ln("head.norm", mb.ACT[cfg["classifier_activation"]](L("head.dense", x[:, 0])))
            return L("classifier", head)
    else:
        raise ValueError(name)
    return f


def rate(f, inputs, repeats):
    """Pairs per second, the mean over repeats timed runs after a warm-up
    (as go test -benchtime Nx reports the mean of N after its first run)."""
    with torch.inference_mode():
        f(*inputs)
        t = time.perf_counter()
        for _ in range(repeats):
            f(*inputs)
        return repeats * inputs[0].shape[0] / (time.perf_counter() - t)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=2, help="timed runs after one warm-up")
    p.add_argument("--only", help="comma-separated families: " + ",".join(FAMILIES))
    a = p.parse_args()
    only = a.only.split(",") if a.only else list(FAMILIES)
    for n in only:
        if n not in FAMILIES:
            sys.exit(f"--only: unknown family {n!r}; want some of {','.join(FAMILIES)}")
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(1)
    for name in only:
        cfg, w = base_checkpoint(name, gen)
        ids = torch.randint(5, cfg["vocab_size"], (PAIRS, LENGTH), generator=gen)
        types = torch.zeros_like(ids)
        if FAMILIES[name][5]:
            types[:, LENGTH // 4:] = 1
        L = Linears(w).eval()
        print(f"torch {name} fp32 {rate(scorer(name, cfg, w, L), (ids, types), a.repeats):.2f}", flush=True)
        q = torch.quantization.quantize_dynamic(L, {nn.Linear}, dtype=torch.qint8)
        print(f"torch {name} int8 {rate(scorer(name, cfg, w, q), (ids, types), a.repeats):.2f}", flush=True)
        del w, L, q


if __name__ == "__main__":
    main()
