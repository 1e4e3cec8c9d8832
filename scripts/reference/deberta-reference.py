#!/usr/bin/python3
"""Tiny random DeBERTa-v2/v3 checkpoints and reference outputs.

Writes, in Hugging Face's layout, two DebertaV2ForSequenceClassification
checkpoints under encoder/deberta/testdata, each with config.json,
model.safetensors (HF's tensor names) and tokenizer.json, and
encoder/deberta/testdata/expected.json: the token ids of a few texts and
sentence pairs, the first and last final states of each pair and the
logits a plain-PyTorch forward pass computes for them.

- tiny-deberta-v2 is shaped as DeBERTa-v3 and the mxbai rerankers are: no
  absolute positions (position_biased_input false), no token types,
  relative positions in log buckets (position_buckets 8, small enough that
  the test pairs reach the log buckets and past max_relative_positions),
  share_att_key, pos_att_type "p2c|c2p", norm_rel_ebd "layer_norm", one
  label, a GELU pooler.
- tiny-deberta-v2-abs covers the other paths: absolute positions and two
  token types added to the word embeddings, embedding_size below
  hidden_size (embed_proj), unbucketed relative positions clamped to
  max_relative_positions, separate pos_key_proj/pos_query_proj
  (share_att_key false), no rel_embeddings LayerNorm, two labels, a tanh
  pooler. Its tokenizer.json names NFKC in place of the precompiled charsmap
  to keep the fixture small (its test texts are plain ASCII).

Everything is written out from the paper (He et al. 2021, DeBERTa, §3.1
disentangled attention, and DeBERTa-v3, He et al. 2023) and the public
modeling_deberta_v2.py, not taken from the transformers library (not
installable here):

- the relative distance of query i and key j is δ(i, j) = i − j, with
  position_buckets > 0 mapped to log buckets: kept as is within ±mid
  (mid = position_buckets/2), otherwise sign·(ceil(log(|δ|/mid) /
  log((max_relative_positions − 1)/mid)·(mid − 1)) + mid), computed in
  float32 as PyTorch does;
- rel_embeddings has 2·span rows (span = position_buckets, or
  max_relative_positions when there are no buckets); c2p reads row
  clamp(δ(i, j) + span, 0, 2·span − 1) of the projected position keys, p2c
  reads row clamp(−δ(j, i) + span, ...) of the projected position queries
  against key j, and the three scores share the scale 1/√(d_head·3);
- post-LN layers (attention output and FFN as BERT's), the ContextPooler
  (pooler.dense over the first state, then pooler_hidden_act) and the
  classifier.

The Unigram vocabulary is trained by Debian's python3-sentencepiece with
DeBERTa-v3's special pieces ([PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3) and
converted to tokenizer.json the way DeBERTa-v3's is (Strip, Precompiled,
Replace of runs of spaces; Metaspace; TemplateProcessing [CLS] A [SEP] B
[SEP] with B's type 1; [MASK] added last). The ids as2 must produce are
sentencepiece's own.

Usage (Debian: apt-get install python3-torch python3-sentencepiece):

    /usr/bin/python3 scripts/reference/deberta-reference.py [encoder/deberta/testdata]
"""

import base64
import importlib
import io
import json
import math
import os
import sys

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bert = importlib.import_module("bert-reference")
roberta = importlib.import_module("roberta-reference")

HIDDEN, LAYERS, HEADS, INTER = 32, 2, 4, 64
EPS = 1e-7
CLS, SEP, UNK = 1, 2, 3

TEXTS = roberta.TEXTS
PAIRS = roberta.PAIRS + [
    ("What did Marie Curie win, and when did she win it?",
     "Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911; "
     "the Great Wall of China is thousands of kilometres long and was built over centuries."),
]

FIXTURES = {
    "tiny-deberta-v2": dict(
        num_labels=1, embedding_size=HIDDEN, position_biased_input=False, type_vocab_size=0,
        position_buckets=8, max_relative_positions=-1, max_position_embeddings=512,
        share_att_key=True, pos_att_type="p2c|c2p", norm_rel_ebd="layer_norm", pooler_hidden_act="gelu",
        charsmap=True),
    "tiny-deberta-v2-abs": dict(
        num_labels=2, embedding_size=24, position_biased_input=True, type_vocab_size=2,
        position_buckets=-1, max_relative_positions=6, max_position_embeddings=128,
        share_att_key=False, pos_att_type=["c2p", "p2c"], norm_rel_ebd="none", pooler_hidden_act="tanh",
        charsmap=False),
}


# ---------------------------------------------------------------- tokenizer

def tokenizer(workdir, charsmap):
    text = os.path.join(workdir, "corpus.txt")
    with open(text, "w") as f:
        f.write(roberta.CORPUS * 3)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(input=text, model_writer=model, vocab_size=150, model_type="unigram",
                                   character_coverage=1.0, seed_sentencepiece_size=5000, num_threads=1,
                                   pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]",
                                   bos_piece="[CLS]", eos_piece="[SEP]", unk_piece="[UNK]", minloglevel=2)
    os.remove(text)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    assert [sp.id_to_piece(i) for i in range(4)] == ["[PAD]", "[CLS]", "[SEP]", "[UNK]"], "unexpected specials"
    vocab = [[sp.id_to_piece(i), 0.0 if i < 4 else sp.get_score(i)] for i in range(sp.get_piece_size())]
    vocab.append(["[MASK]", 0.0])
    if charsmap:
        cm = base64.b64encode(roberta.precompiled_charsmap(model.getvalue())).decode()
        norm = {"type": "Precompiled", "precompiled_charsmap": cm}
    else:
        norm = {"type": "NFKC"}
    added = [
        {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for i, t in ((0, "[PAD]"), (1, "[CLS]"), (2, "[SEP]"), (3, "[UNK]"), (len(vocab) - 1, "[MASK]"))
    ]

    def tok(t, typ):
        return {"SpecialToken": {"id": t, "type_id": typ}}

    def seq(s, typ):
        return {"Sequence": {"id": s, "type_id": typ}}

    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Strip", "strip_left": True, "strip_right": True},
            norm,
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
            "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1), tok("[SEP]", 1)],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [CLS], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [SEP], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": UNK, "vocab": vocab, "byte_fallback": False},
    }
    return tj, len(vocab), lambda s: sp.encode(s)


# ---------------------------------------------------------------- the model

def pos_att_types(f):
    t = f["pos_att_type"]
    if isinstance(t, str):
        t = [x.strip() for x in t.lower().split("|")]
    return t


def span(f):
    maxrel = f["max_relative_positions"] if f["max_relative_positions"] >= 1 else f["max_position_embeddings"]
    return f["position_buckets"] if f["position_buckets"] > 0 else maxrel, maxrel


def random_deberta(gen, f, vocab):
    w = {}

    def normal(name, *shape, std=0.2, mean=0.0):
        w[name] = (torch.randn(*shape, generator=gen, dtype=torch.float64) * std + mean).float()

    def linear(name, out, inp, bias=True):
        normal(name + ".weight", out, inp, std=1 / math.sqrt(inp))
        if bias:
            normal(name + ".bias", out, std=0.1)

    def layernorm(name):
        normal(name + ".weight", HIDDEN, std=0.1, mean=1.0)
        normal(name + ".bias", HIDDEN, std=0.1)

    e = f["embedding_size"]
    p = "deberta."
    normal(p + "embeddings.word_embeddings.weight", vocab, e, std=0.5)
    if f["position_biased_input"]:
        normal(p + "embeddings.position_embeddings.weight", f["max_position_embeddings"], e, std=0.5)
    if f["type_vocab_size"] > 0:
        normal(p + "embeddings.token_type_embeddings.weight", f["type_vocab_size"], e, std=0.5)
    if e != HIDDEN:
        linear(p + "embeddings.embed_proj", HIDDEN, e, bias=False)
    layernorm(p + "embeddings.LayerNorm")
    s, _ = span(f)
    normal(p + "encoder.rel_embeddings.weight", 2 * s, HIDDEN, std=0.5)
    if f["norm_rel_ebd"] == "layer_norm":
        layernorm(p + "encoder.LayerNorm")
    types = pos_att_types(f)
    for i in range(LAYERS):
        q = f"{p}encoder.layer.{i}."
        for part in ("query_proj", "key_proj", "value_proj"):
            linear(q + "attention.self." + part, HIDDEN, HIDDEN)
        if not f["share_att_key"]:
            if "c2p" in types:
                linear(q + "attention.self.pos_key_proj", HIDDEN, HIDDEN)
            if "p2c" in types:
                linear(q + "attention.self.pos_query_proj", HIDDEN, HIDDEN)
        linear(q + "attention.output.dense", HIDDEN, HIDDEN)
        layernorm(q + "attention.output.LayerNorm")
        linear(q + "intermediate.dense", INTER, HIDDEN)
        linear(q + "output.dense", HIDDEN, INTER)
        layernorm(q + "output.LayerNorm")
    linear("pooler.dense", HIDDEN, HIDDEN)
    linear("classifier", f["num_labels"], HIDDEN)
    return w


def relative_positions(n, f):
    """δ(i, j) = i − j for n positions, log-bucketed when position_buckets
    > 0 (in float32, as PyTorch computes it)."""
    idx = torch.arange(n)
    rel = idx[:, None] - idx[None, :]
    buckets, maxrel = f["position_buckets"], span(f)[1]
    if buckets <= 0 or maxrel <= 0:
        return rel
    sign = torch.sign(rel)
    mid = buckets // 2
    abs_pos = torch.where((rel < mid) & (rel > -mid), torch.tensor(mid - 1), rel.abs())
    log_pos = torch.ceil(torch.log(abs_pos.float() / mid) / torch.log(torch.tensor((maxrel - 1) / mid, dtype=torch.float32))
                         * (mid - 1)) + mid
    return torch.where(abs_pos <= mid, rel.float(), log_pos * sign).long()


def act(name, x):
    if name == "gelu":
        return bert.gelu(x)
    if name == "tanh":
        return torch.tanh(x)
    raise ValueError(name)


def forward(w, f, ids, types):
    """States [T, H] and logits of one unpadded sequence, in float64."""
    g = {k: v.double() for k, v in w.items()}
    p = "deberta."

    def lin(name, x):
        y = x @ g[name + ".weight"].T
        return y + g[name + ".bias"] if name + ".bias" in g else y

    def ln(name, x):
        return bert.layer_norm(x, g[name + ".weight"], g[name + ".bias"], EPS)

    n = len(ids)
    ids_t = torch.tensor(ids)
    x = g[p + "embeddings.word_embeddings.weight"][ids_t]
    if f["position_biased_input"]:
        x = x + g[p + "embeddings.position_embeddings.weight"][torch.arange(n)]
    if f["type_vocab_size"] > 0:
        x = x + g[p + "embeddings.token_type_embeddings.weight"][torch.tensor(types)]
    if f["embedding_size"] != HIDDEN:
        x = lin(p + "embeddings.embed_proj", x)
    x = ln(p + "embeddings.LayerNorm", x)
    x = layers(g, f, x)
    pooled = act(f["pooler_hidden_act"], lin("pooler.dense", x[0]))
    return x, lin("classifier", pooled)


def layers(g, f, x, lin=None, hidden=HIDDEN, n_layers=LAYERS, n_heads=HEADS):
    """The layers over x [T, H], or a batch [B, T, H] of unpadded sequences
    of one length; g holds the weights under their full names (float64
    here). scripts/peers/families.py runs them at base sizes with its own
    lin(name, x) (float32 or int8 nn.Linear modules)."""
    p = "deberta."
    if lin is None:
        def lin(name, y):
            z = y @ g[name + ".weight"].T
            return z + g[name + ".bias"] if name + ".bias" in g else z

    def ln(name, y):
        return bert.layer_norm(y, g[name + ".weight"], g[name + ".bias"], EPS)

    n = x.shape[-2]
    s, _ = span(f)
    rel_emb = g[p + "encoder.rel_embeddings.weight"]
    if f["norm_rel_ebd"] == "layer_norm":
        rel_emb = ln(p + "encoder.LayerNorm", rel_emb)
    rel = relative_positions(n, f)
    c2p_pos = torch.clamp(rel + s, 0, 2 * s - 1)       # [i, j]: row for Q_i·Kr
    p2c_pos = torch.clamp(-rel.T + s, 0, 2 * s - 1)    # [i, j]: row for K_j·Qr, −δ(j, i)
    types_att = pos_att_types(f)
    dh = hidden // n_heads
    scale = math.sqrt(dh * (1 + len(types_att)))

    def heads(y):
        return y.view(*y.shape[:-1], n_heads, dh).transpose(-3, -2)  # [..., heads, rows, dh]

    for i in range(n_layers):
        q = f"{p}encoder.layer.{i}."
        a = q + "attention.self."
        qh, kh, vh = heads(lin(a + "query_proj", x)), heads(lin(a + "key_proj", x)), heads(lin(a + "value_proj", x))
        scores = qh @ kh.transpose(-1, -2)
        pk_name = a + ("key_proj" if f["share_att_key"] else "pos_key_proj")
        pq_name = a + ("query_proj" if f["share_att_key"] else "pos_query_proj")
        if "c2p" in types_att:
            c2p = qh @ heads(lin(pk_name, rel_emb)).transpose(-1, -2)         # [..., heads, T, 2s]
            scores = scores + torch.gather(c2p, -1, c2p_pos.expand(*c2p.shape[:-1], n))
        if "p2c" in types_att:
            p2c = kh @ heads(lin(pq_name, rel_emb)).transpose(-1, -2)         # [..., heads, T(keys), 2s]
            # p2c[h, i, j] = (K_j·Qr)[p2c_pos[i, j]]
            scores = scores + torch.gather(p2c, -1, p2c_pos.T.expand(*p2c.shape[:-1], n)).transpose(-1, -2)
        probs = torch.softmax(scores / scale, -1)
        ctx = (probs @ vh).transpose(-3, -2).reshape(*x.shape[:-1], hidden)
        h = ln(q + "attention.output.LayerNorm", lin(q + "attention.output.dense", ctx) + x)
        ff = lin(q + "output.dense", bert.gelu(lin(q + "intermediate.dense", h)))
        x = ln(q + "output.LayerNorm", ff + h)
    return x


def config(f, vocab):
    c = {
        "architectures": ["DebertaV2ForSequenceClassification"], "model_type": "deberta-v2",
        "vocab_size": vocab, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": INTER, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1, "max_position_embeddings": f["max_position_embeddings"],
        "type_vocab_size": f["type_vocab_size"], "initializer_range": 0.02, "layer_norm_eps": EPS,
        "relative_attention": True, "max_relative_positions": f["max_relative_positions"],
        "position_buckets": f["position_buckets"], "pad_token_id": 0,
        "position_biased_input": f["position_biased_input"], "pos_att_type": f["pos_att_type"],
        "share_att_key": f["share_att_key"], "norm_rel_ebd": f["norm_rel_ebd"],
        "pooler_dropout": 0, "pooler_hidden_act": f["pooler_hidden_act"], "pooler_hidden_size": HIDDEN,
    }
    if f["embedding_size"] != HIDDEN:
        c["embedding_size"] = f["embedding_size"]
    c["id2label"] = {str(i): f"LABEL_{i}" for i in range(f["num_labels"])}
    c["label2id"] = {f"LABEL_{i}": i for i in range(f["num_labels"])}
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "encoder/deberta/testdata"
    gen = torch.Generator().manual_seed(60)
    expected = {}
    for name, f in FIXTURES.items():
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        tj, vocab, encode = tokenizer(out, f["charsmap"])
        w = random_deberta(gen, f, vocab)
        bert.write_safetensors(os.path.join(d, "model.safetensors"), w, torch.float32)
        with open(os.path.join(d, "config.json"), "w") as fh:
            json.dump(config(f, vocab), fh, indent=2)
        with open(os.path.join(d, "tokenizer.json"), "w") as fh:
            json.dump(tj, fh, ensure_ascii=False, indent=1)
        texts = [{"text": t, "ids": encode(t)} for t in (TEXTS if f["charsmap"] else [])]
        pairs = []
        for a, b in PAIRS:
            ea, eb = encode(a), encode(b)
            ids = [CLS] + ea + [SEP] + eb + [SEP]
            types = [0] * (len(ea) + 2) + [1] * (len(eb) + 1)
            states, logits = forward(w, f, ids, types)
            pairs.append({"a": a, "b": b, "ids": ids, "logits": logits.tolist(),
                          "states_first": states[0].tolist(), "states_last": states[-1].tolist()})
        expected[name] = {"texts": texts, "pairs": pairs}
    with open(os.path.join(out, "expected.json"), "w") as fh:
        json.dump(expected, fh, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
