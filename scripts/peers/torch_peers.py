#!/usr/bin/python3
"""PyTorch counterparts of as2's peer benchmarks, and their ONNX graphs.

The shapes are those of model/crossencoder/peers_bench_test.go and
encoder/uselite/peers_bench_test.go, with random weights:

  minilm          BenchmarkPeersScore6x384: a BERT-style cross-encoder of
                  MiniLM-L6's shape (6 post-norm layers, width 384, 12 heads,
                  FFN 1536, GELU), score on [CLS]; 100 pairs of 128 tokens.
  uselite-cross   BenchmarkPeersScoreUSELite: USE-Lite (embeddings 8002x256,
                  pre-norm layer 0 of width 256 with its input projected to
                  512, layer 1 of width 512, 4 heads, ReLU FFN 1536) under
                  mean pooling and a linear score; 100 pairs of 40 tokens.
  uselite-embed   BenchmarkPeersEmbed: USE-Lite's sentence head (mean, tanh
                  dense 512x512, l2 normalisation); 100 sentences of 32 tokens.

Each model runs as one batch (what PyTorch and ONNX Runtime users do) in
fp32 and after torch.quantization.quantize_dynamic (int8 weights, per-token
dynamic activations, fbgemm). The layers are written out by hand:
nn.TransformerEncoder's fast path breaks the 1.13 exporter. With --export
DIR the fp32 graphs are written to DIR/<name>.onnx for scripts/peers/ort.js.
It needs only Debian's python3-torch (1.13) and prints one line per model
and precision: "torch <name> <fp32|int8> <pairs/s>".

    /usr/bin/python3 scripts/peers/torch_peers.py --threads 2 --export /tmp/as2-peers
"""
import argparse
import math
import os
import time

import torch
from torch import nn


class Attention(nn.Module):
    """Multi-head self-attention with one fused q/k/v projection."""

    def __init__(self, d_in, d, heads, d_out):
        super().__init__()
        self.heads, self.d = heads, d
        self.qkv = nn.Linear(d_in, 3 * d)
        self.out = nn.Linear(d, d_out)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(self.d, dim=-1)
        dh = self.d // self.heads

        def heads(z):
            return z.reshape(b, t, self.heads, dh).transpose(1, 2)

        a = torch.softmax(heads(q) @ heads(k).transpose(-1, -2) / math.sqrt(dh), dim=-1)
        return self.out((a @ heads(v)).transpose(1, 2).reshape(b, t, self.d))


class BertLayer(nn.Module):
    """Post-norm BERT layer: attention, add & norm, GELU FFN, add & norm."""

    def __init__(self, d, heads, ffn):
        super().__init__()
        self.attn = Attention(d, d, heads, d)
        self.norm1 = nn.LayerNorm(d, eps=1e-12)
        self.ffn1 = nn.Linear(d, ffn)
        self.ffn2 = nn.Linear(ffn, d)
        self.norm2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.ffn2(torch.nn.functional.gelu(self.ffn1(x))))


class MiniLM(nn.Module):
    def __init__(self, vocab=30522, d=384, layers=6, heads=12, ffn=1536, max_pos=512):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.types = nn.Embedding(2, d)
        self.norm = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, ffn) for _ in range(layers))
        self.score = nn.Linear(d, 1)

    def forward(self, ids, types):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.norm(self.word(ids) + self.pos(pos) + self.types(types))
        for layer in self.layers:
            x = layer(x)
        return self.score(x[:, 0]).squeeze(-1)


class USELayer(nn.Module):
    """USE-Lite's pre-norm layer (encoder/uselite/graph.md): layer 0 projects
    its un-normalised input 256 -> 512 for the residual."""

    def __init__(self, d_in, d, heads, ffn, project):
        super().__init__()
        self.attn_norm = nn.LayerNorm(d_in, eps=1e-6)
        self.proj = nn.Linear(d_in, d) if project else None
        self.attn = Attention(d_in, d_in, heads, d)
        self.ffn_norm = nn.LayerNorm(d, eps=1e-6)
        self.ffn1 = nn.Linear(d, ffn)
        self.ffn2 = nn.Linear(ffn, d)

    def forward(self, x):
        res = self.proj(x) if self.proj is not None else x
        y = res + self.attn(self.attn_norm(x))
        return y + self.ffn2(torch.relu(self.ffn1(self.ffn_norm(y))))


class USELite(nn.Module):
    """USE-Lite: as a cross-encoder (mean pool, linear score) or as the
    sentence encoder (mean pool, tanh dense, l2 normalisation)."""

    def __init__(self, sentence, vocab=8002, e=256, d=512, heads=4, ffn=1536, max_len=128):
        super().__init__()
        self.sentence = sentence
        self.embed = nn.Embedding(vocab, e)
        inv = torch.exp(-torch.arange(e // 2) * math.log(1e4) / (e // 2 - 1))
        pos = torch.arange(max_len).unsqueeze(1) * inv.unsqueeze(0)
        self.register_buffer("signal", torch.cat([pos.sin(), pos.cos()], dim=1))
        self.layers = nn.ModuleList([USELayer(e, d, heads, ffn, True), USELayer(d, d, heads, ffn, False)])
        self.head = nn.Linear(d, d) if sentence else nn.Linear(d, 1)

    def forward(self, ids):
        emb = self.embed(ids)
        x = emb + emb + self.signal[: ids.shape[1]]  # the graph counts the embeddings twice
        for layer in self.layers:
            x = layer(x)
        pooled = x.mean(dim=1)
        if self.sentence:
            return torch.nn.functional.normalize(torch.tanh(self.head(pooled)), dim=-1)
        return self.head(pooled).squeeze(-1)


def models():
    """(name, model, inputs, input names) of the three shapes."""
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(0, 30522, (100, 128), generator=g)
    types = torch.zeros_like(ids)
    types[:, 128 // 4:] = 1
    yield "minilm", MiniLM(), (ids, types), ["ids", "types"]
    yield "uselite-cross", USELite(False), (torch.randint(0, 8002, (100, 40), generator=g),), ["ids"]
    yield "uselite-embed", USELite(True), (torch.randint(0, 8002, (100, 32), generator=g),), ["ids"]


def rate(m, inputs, repeats):
    """Items per second, the mean over repeats timed runs after a warm-up
    (as go test -benchtime Nx reports the mean of N)."""
    with torch.inference_mode():
        m(*inputs)
        t = time.perf_counter()
        for _ in range(repeats):
            m(*inputs)
        return repeats * inputs[0].shape[0] / (time.perf_counter() - t)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3, help="timed runs; 0 only exports")
    p.add_argument("--export", help="folder to write the fp32 ONNX graphs to")
    p.add_argument("--only", help="comma-separated model names")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    only = set(a.only.split(",")) if a.only else None
    for name, m, inputs, names in models():
        if only and name not in only:
            continue
        m.eval()
        if a.export:
            os.makedirs(a.export, exist_ok=True)
            path = os.path.join(a.export, name + ".onnx")
            if not os.path.exists(path):
                with torch.no_grad():
                    torch.onnx.export(m, inputs, path + ".tmp", input_names=names, output_names=["out"],
                                      opset_version=14)
                os.replace(path + ".tmp", path)
        if a.repeats <= 0:
            continue
        print(f"torch {name} fp32 {rate(m, inputs, a.repeats):.1f}", flush=True)
        q = torch.quantization.quantize_dynamic(m, {nn.Linear}, dtype=torch.qint8)
        print(f"torch {name} int8 {rate(q, inputs, a.repeats):.1f}", flush=True)


if __name__ == "__main__":
    main()
