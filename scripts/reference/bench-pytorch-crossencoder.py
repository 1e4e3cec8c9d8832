#!/usr/bin/python3
"""PyTorch counterpart of BenchmarkScore6x384 (model/crossencoder/bench_test.go).

A BERT-style cross-encoder of MiniLM-L6's shape (6 post-norm layers, width 384,
12 heads, FFN 1536, GELU; word, position and token-type embeddings; a linear
score on [CLS]) with random weights scores 100 candidates of 128 tokens on the
CPU, and prints pairs/s. It needs only Debian's PyTorch 1.13
(apt-get install -y python3-torch), no transformers:

    /usr/bin/python3 scripts/reference/bench-pytorch-crossencoder.py --threads 2
"""
import argparse
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--threads", type=int, default=2)
p.add_argument("--pairs", type=int, default=100)
p.add_argument("--length", type=int, default=128)
p.add_argument("--repeats", type=int, default=3)
a = p.parse_args()
torch.set_num_threads(a.threads)
torch.manual_seed(1)


class CrossEncoder(torch.nn.Module):
    def __init__(self, vocab=30522, d=384, layers=6, heads=12, ffn=1536, max_pos=512):
        super().__init__()
        self.word = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(max_pos, d)
        self.types = torch.nn.Embedding(2, d)
        self.norm = torch.nn.LayerNorm(d, eps=1e-12)
        layer = torch.nn.TransformerEncoderLayer(d, heads, ffn, dropout=0.1, activation="gelu", batch_first=True, layer_norm_eps=1e-12)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.score = torch.nn.Linear(d, 1)

    def forward(self, ids, types, pad):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.norm(self.word(ids) + self.pos(pos) + self.types(types))
        x = self.encoder(x, src_key_padding_mask=pad)
        return self.score(x[:, 0]).squeeze(-1)


m = CrossEncoder().eval()
ids = torch.randint(0, 30522, (a.pairs, a.length))
types = torch.zeros_like(ids)
types[:, a.length // 4:] = 1
pad = torch.zeros(a.pairs, a.length, dtype=torch.bool)
with torch.inference_mode():
    m(ids, types, pad)  # warm-up
    best = float("inf")
    for _ in range(a.repeats):
        t = time.perf_counter()
        m(ids, types, pad)
        best = min(best, time.perf_counter() - t)
print(f"torch {torch.__version__}, {a.threads} threads: {a.pairs} pairs of {a.length} tokens in {best:.3f}s: {a.pairs / best:.1f} pairs/s")
