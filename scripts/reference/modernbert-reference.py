#!/usr/bin/python3
"""Tiny random ModernBERT checkpoints and reference outputs.

Writes, in Hugging Face's layout, encoder/modernbert/testdata/tiny-modernbert
(ModernBertForSequenceClassification, 2 labels, [CLS] pooling, no biases:
the released checkpoints' form; 3 layers, layer 0 global and layers 1-2
local with an 8-token window) and encoder/modernbert/testdata/tiny-modernbert-mean
(1 label, classifier_pooling "mean", every bias on, the tanh GELU,
local_rope_theta null), each with config.json, model.safetensors (HF's
tensor names under "model.", the head's outside) and tokenizer.json, and
encoder/modernbert/testdata/expected.json: the token ids of a few texts and
sentence pairs, and the states and logits a plain-PyTorch forward pass
computes for the pairs.

Everything is written out from the public descriptions, not taken from the
transformers or tokenizers libraries (neither is installable here):

- the tokenizer is byte-level BPE as ModernBERT's tokenizer.json declares
  it: an NFC normalizer, the ByteLevel pre-tokenizer without a prefix space,
  GPT-NeoX-style added tokens for runs of spaces (not special, matched
  before pre-tokenizing, as Hugging Face's tokenizers split on every added
  token first) and [UNK] [CLS] [SEP] [PAD] [MASK] after the vocabulary, and
  a TemplateProcessing post-processor: [CLS] A [SEP] and [CLS] A [SEP] B
  [SEP]. The BPE itself (GPT-2's byte map, split pattern, merge learning
  and ranking) is roberta-reference.py's;
- the model follows Warner et al. (2024) and the public
  modeling_modernbert.py: token embeddings, LayerNorm; per layer a pre-norm
  (none in layer 0) attention with one fused Wqkv projection, rotary
  positions (rotate-half layout; global_rope_theta in global layers,
  local_rope_theta in local ones), a sliding window |i - j| <= local_attention // 2
  in the local layers (layer i is global when i % global_attn_every_n_layers == 0),
  Wo, then mlp_norm and the GeGLU MLP Wo(act(input) * gate) with input,
  gate = Wi(x).chunk(2); final_norm; the head norm(act(dense(pooled))) and
  the classifier.

Usage (Debian: apt-get install python3-torch python3-sentencepiece):

    /usr/bin/python3 scripts/reference/modernbert-reference.py [encoder/modernbert/testdata]
"""

import importlib
import json
import math
import os
import sys
import unicodedata

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bert = importlib.import_module("bert-reference")
roberta = importlib.import_module("roberta-reference")

HIDDEN, HEADS, INTER = 32, 4, 48
MAXPOS = 128
EPS = 1e-5

CORPUS = roberta.CORPUS + """Rotary positions rotate queries and keys; a sliding window keeps attention local.
ModernBERT alternates global and local attention layers and uses a gated linear unit.
"""

TEXTS = [
    "Who wrote War and Peace?",
    "Leo Tolstoy wrote the novel, published in 1869.",
    "  The tower's height:   330 metres!\tIt's tall.",
    "Cafe\u0301 in Zu\u0308rich \u2014 na\u00efve r\u00e9sum\u00e9 \U0001F600",  # NFC composes e+acute
    "",
    "unseenword xyzzy 12345",
    "Paris is the [MASK] of France.",
    "line one\nline two\n\n    indented     words",
] + CORPUS.splitlines()
PAIRS = [
    ("Who wrote War and Peace?", "Leo Tolstoy wrote War and Peace, published in 1869."),
    ("How tall is Mount Everest?", "Water boils at 100 degrees Celsius at sea level, and ice melts at 0 degrees."),
    ("Where is the Eiffel Tower?", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."),
    ("What does a sliding window do?", "ModernBERT alternates global and local attention layers and uses a gated linear unit."),
]


# ---------------------------------------------------------------- tokenizer

def tokenizer():
    b2u = roberta.bytes_to_unicode()
    merges = roberta.bpe_train(CORPUS, 150)
    vocab = {"<|endoftext|>": 0, "<|padding|>": 1}
    for b in range(256):
        vocab.setdefault(b2u[b], len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    # GPT-NeoX's runs of spaces: in the vocabulary and added, not special.
    spaces = [" " * n for n in (4, 3, 2)]
    for s in spaces:
        vocab[s] = len(vocab)
    added = [{"id": 0, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True},
             {"id": 1, "content": "<|padding|>", "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}]
    added += [{"id": vocab[s], "content": s, "single_word": False, "lstrip": False, "rstrip": False,
               "normalized": True, "special": False} for s in spaces]
    specials = {}
    for t in ("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"):
        specials[t] = len(vocab) + len(specials)
        added.append({"id": specials[t], "content": t, "single_word": False, "lstrip": t == "[MASK]",
                      "rstrip": False, "normalized": False, "special": True})
    ranks = {m: i for i, m in enumerate(merges)}

    def bpe(s):
        s = unicodedata.normalize("NFC", s)
        ids = []
        for w in roberta.gpt2_split(s):
            ids += [vocab[p] for p in roberta.bpe_word([b2u[b] for b in w.encode()], ranks)]
        return ids

    by_len = sorted(added, key=lambda a: -len(a["content"]))

    def encode(s):
        # Added tokens first, leftmost and then longest; the text between
        # them through the normalizer, pre-tokenizer and BPE.
        ids = []
        while s:
            best = None
            for a in by_len:
                i = s.find(a["content"])
                if i >= 0 and (best is None or i < best[0]):
                    best = (i, a)
            if best is None:
                ids += bpe(s)
                break
            i, a = best
            before, s = s[:i], s[i + len(a["content"]):]
            if a["lstrip"]:
                before = before.rstrip()
            if a["rstrip"]:
                s = s.lstrip()
            if before:
                ids += bpe(before)
            ids.append(a["id"])
        return ids

    cls, sep = specials["[CLS]"], specials["[SEP]"]

    def special(name, type_id):
        return {"SpecialToken": {"id": name, "type_id": type_id}}

    def seq(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}

    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": sorted(added, key=lambda a: a["id"]),
        "normalizer": {"type": "NFC"},
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [[a, b] for a, b in merges]},
    }
    return tj, len(vocab) + len(specials), encode, cls, sep


# ---------------------------------------------------------------- the model

def random_modernbert(gen, c):
    w = {}
    h, inter, n = c["hidden_size"], c["intermediate_size"], c["num_labels"]

    def rnd(*shape, std=1.0):
        return torch.randn(*shape, generator=gen, dtype=torch.float64) * std

    def linear(name, out, inp, bias):
        w[name + ".weight"] = rnd(out, inp, std=1 / math.sqrt(inp))
        if bias:
            w[name + ".bias"] = rnd(out, std=0.1)

    def norm(name):
        w[name + ".weight"] = 1 + rnd(h, std=0.1)
        if c["norm_bias"]:
            w[name + ".bias"] = rnd(h, std=0.1)

    w["model.embeddings.tok_embeddings.weight"] = rnd(c["vocab_size"], h)
    norm("model.embeddings.norm")
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        if i > 0:
            norm(p + "attn_norm")
        linear(p + "attn.Wqkv", 3 * h, h, c["attention_bias"])
        linear(p + "attn.Wo", h, h, c["attention_bias"])
        norm(p + "mlp_norm")
        linear(p + "mlp.Wi", 2 * inter, h, c["mlp_bias"])
        linear(p + "mlp.Wo", h, inter, c["mlp_bias"])
    norm("model.final_norm")
    linear("head.dense", h, h, c["classifier_bias"])
    norm("head.norm")
    linear("classifier", n, h, True)
    return w


ACT = {"gelu": lambda x: torch.nn.functional.gelu(x),
       "gelu_pytorch_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}


def rotary(x, theta):
    """x [..., T, heads, dh] rotated by position (rotate-half pairs i, i + dh/2)."""
    t, _, dh = x.shape[-3:]
    inv = 1.0 / theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    ang = torch.arange(t, dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = torch.cos(ang)[:, None, :].to(x.dtype), torch.sin(ang)[:, None, :].to(x.dtype)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def forward(w, c, ids):
    """States [T, H] and logits of one unpadded sequence, in float64."""
    h, heads = c["hidden_size"], c["num_attention_heads"]
    dh = h // heads
    eps = c["norm_eps"]

    def ln(name, x):
        return bert.layer_norm(x, w[name + ".weight"], w.get(name + ".bias", torch.zeros(h, dtype=torch.float64)), eps)

    def lin(name, x):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    x = ln("model.embeddings.norm", w["model.embeddings.tok_embeddings.weight"][torch.tensor(ids)])
    x = layers(w, c, x)
    x = ln("model.final_norm", x)
    pooled = x.mean(0) if c["classifier_pooling"] == "mean" else x[0]
    head = ln("head.norm", ACT[c["classifier_activation"]](lin("head.dense", pooled)))
    return x, lin("classifier", head)


def layers(w, c, x, lin=None):
    """The layers over x [T, H], or a batch [B, T, H] of unpadded sequences
    of one length. scripts/peers/families.py runs them at base sizes with
    its own lin(name, x) (float32 or int8 nn.Linear modules)."""
    h, heads = c["hidden_size"], c["num_attention_heads"]
    dh = h // heads
    eps = c["norm_eps"]

    def ln(name, y):
        return bert.layer_norm(y, w[name + ".weight"], w.get(name + ".bias", torch.zeros(h, dtype=y.dtype)), eps)

    if lin is None:
        def lin(name, y):
            z = y @ w[name + ".weight"].T
            return z + w[name + ".bias"] if name + ".bias" in w else z

    act = ACT[c["hidden_activation"]]
    t = x.shape[-2]
    local_theta = c["local_rope_theta"] if c["local_rope_theta"] is not None else c["global_rope_theta"]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        glob = i % c["global_attn_every_n_layers"] == 0
        a = x if i == 0 else ln(p + "attn_norm", x)
        qkv = lin(p + "attn.Wqkv", a).view(*a.shape[:-2], t, 3, heads, dh)
        theta = c["global_rope_theta"] if glob else local_theta
        q, k, v = rotary(qkv[..., 0, :, :], theta), rotary(qkv[..., 1, :, :], theta), qkv[..., 2, :, :]
        s = torch.einsum("...ihd,...jhd->...hij", q, k) / math.sqrt(dh)
        if not glob:
            pos = torch.arange(t)
            far = (pos[:, None] - pos[None, :]).abs() > c["local_attention"] // 2
            s = s.masked_fill(far, float("-inf"))
        o = torch.einsum("...hij,...jhd->...ihd", torch.softmax(s, dim=-1), v).reshape(*a.shape[:-2], t, h)
        x = x + lin(p + "attn.Wo", o)
        inp, gate = lin(p + "mlp.Wi", ln(p + "mlp_norm", x)).chunk(2, dim=-1)
        x = x + lin(p + "mlp.Wo", act(inp) * gate)
    return x


def config(vocab, cls, sep, pad, **kw):
    c = {
        "architectures": ["ModernBertForSequenceClassification"], "model_type": "modernbert",
        "vocab_size": vocab, "hidden_size": HIDDEN, "intermediate_size": INTER, "num_hidden_layers": 3,
        "num_attention_heads": HEADS, "hidden_activation": "gelu", "max_position_embeddings": MAXPOS,
        "initializer_range": 0.02, "initializer_cutoff_factor": 2.0, "norm_eps": EPS, "norm_bias": False,
        "pad_token_id": pad, "eos_token_id": sep, "bos_token_id": cls, "cls_token_id": cls, "sep_token_id": sep,
        "global_rope_theta": 160000.0, "attention_bias": False, "attention_dropout": 0.0,
        "global_attn_every_n_layers": 3, "local_attention": 8, "local_rope_theta": 10000.0,
        "embedding_dropout": 0.0, "mlp_bias": False, "mlp_dropout": 0.0, "decoder_bias": True,
        "classifier_pooling": "cls", "classifier_dropout": 0.0, "classifier_bias": False,
        "classifier_activation": "gelu", "deterministic_flash_attn": False, "sparse_prediction": False,
        "sparse_pred_ignore_index": -100, "reference_compile": None, "torch_dtype": "float32",
        "num_labels": 2,
    }
    c.update(kw)
    n = c["num_labels"]
    c["id2label"] = {str(i): f"LABEL_{i}" for i in range(n)}
    c["label2id"] = {f"LABEL_{i}": i for i in range(n)}
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "encoder/modernbert/testdata"
    gen = torch.Generator().manual_seed(60)
    tj, ntok, encode, cls, sep = tokenizer()
    vocab = (ntok + 7) // 8 * 8 + 8  # padded past the tokenizer, as ModernBERT's 50368
    pad = [a["id"] for a in tj["added_tokens"] if a["content"] == "[PAD]"][0]
    expected = {}
    for name, cfg in (
        ("tiny-modernbert", config(vocab, cls, sep, pad)),
        ("tiny-modernbert-mean", config(vocab, cls, sep, pad, num_hidden_layers=2, num_labels=1,
                                        global_attn_every_n_layers=2, local_attention=6, local_rope_theta=None,
                                        norm_bias=True, attention_bias=True, mlp_bias=True, classifier_bias=True,
                                        classifier_pooling="mean", hidden_activation="gelu_pytorch_tanh")),
    ):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        w = random_modernbert(gen, cfg)
        bert.write_safetensors(os.path.join(d, "model.safetensors"), w, torch.float32)
        w = {k: v.float().double() for k, v in w.items()}  # the values as stored
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        with open(os.path.join(d, "tokenizer.json"), "w") as f:
            json.dump(tj, f, ensure_ascii=False, indent=1)
        texts = [{"text": t, "ids": encode(t)} for t in TEXTS]
        pairs = []
        for a, b in PAIRS:
            ids = [cls] + encode(a) + [sep] + encode(b) + [sep]
            assert len(ids) > cfg["local_attention"], "a pair shorter than the window tests no local attention"
            states, logits = forward(w, cfg, ids)
            pairs.append({"a": a, "b": b, "ids": ids, "logits": logits.tolist(),
                          "states_first": states[0].tolist(), "states_last": states[-1].tolist()})
        expected[name] = {"texts": texts, "pairs": pairs}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
