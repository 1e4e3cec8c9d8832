#!/usr/bin/python3
"""Tiny random RoBERTa and XLM-RoBERTa checkpoints and reference outputs.

Writes, in Hugging Face's layout, encoder/roberta/testdata/tiny-roberta
(RobertaForSequenceClassification, 2 labels, byte-level BPE tokenizer.json)
and encoder/roberta/testdata/tiny-xlm-roberta
(XLMRobertaForSequenceClassification, 1 label, SentencePiece Unigram
tokenizer.json), each with config.json, model.safetensors (HF's tensor
names) and tokenizer.json, and encoder/roberta/testdata/expected.json: the
token ids of a few texts and sentence pairs and the logits a plain-PyTorch
forward pass computes for them.

Everything is written out from the published algorithms, not taken from the
transformers or tokenizers libraries (neither is installable here):

- byte-level BPE (Radford et al. 2019; Sennrich et al. 2016): GPT-2's
  bytes-to-unicode map, its pre-tokenizer pattern
  's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
  (matched by hand with unicodedata, since Python's re has no \\p), merges
  learnt on a small text by pair counts, and encoding by merge rank;
- the Unigram vocabulary is trained by Debian's python3-sentencepiece and
  converted to tokenizer.json's Unigram form the way XLM-R's is: <s>, <pad>,
  </s>, <unk> first (fairseq's ids 0-3), SentencePiece's pieces after its
  own three specials (so a piece's id is its SentencePiece id + 1), <mask>
  last; the ids as2 must produce are sentencepiece's own encode + 1;
- the model (Liu et al. 2019, and the public modeling_roberta.py): BERT's
  post-LN layers, position ids counting from padding_idx + 1, one token
  type, and the classification head on <s>: out_proj(tanh(dense(h_<s>))).

Usage (Debian: apt-get install python3-torch python3-sentencepiece):

    /usr/bin/python3 scripts/reference/roberta-reference.py [encoder/roberta/testdata]
"""

import base64
import collections
import importlib
import io
import json
import math
import os
import sys
import unicodedata

import sentencepiece as spm
import torch

# The encoder's weights, layers and safetensors writer are BERT's.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bert = importlib.import_module("bert-reference")

HIDDEN, LAYERS, HEADS, INTER = bert.HIDDEN, bert.LAYERS, bert.HEADS, bert.INTER
PAD = 1
MAXPOS = 64 + PAD + 1  # 64 usable positions after the offset
EPS = 1e-5

CORPUS = """Who wrote the novel War and Peace? Leo Tolstoy wrote War and Peace, published in 1869.
The Eiffel Tower is a wrought-iron lattice tower in Paris, France. It was named after Gustave Eiffel.
How tall is Mount Everest? Mount Everest is 8,849 metres tall, the highest mountain above sea level.
Water boils at 100 degrees Celsius at sea level. Ice melts at 0 degrees.
The quick brown fox jumps over the lazy dog. They're sure it's the dog's ball, we'll see.
Photosynthesis converts light energy into chemical energy stored in glucose.
The Great Wall of China is thousands of kilometres long and was built over centuries.
Marie Curie won the Nobel Prize in Physics in 1903 and in Chemistry in 1911.
Café, naïve and résumé keep their accents; Zürich and São Paulo are cities.
"""

TEXTS = [
    "Who wrote War and Peace?",
    "Leo Tolstoy wrote the novel, published in 1869.",
    "  The tower's height:   330 metres!\tIt's tall.",
    "Café in Zürich — naïve résumé 😀",
    "",
    "unseenword xyzzy 12345",
    "Ünïcödé façade: 3.14159 — e=mc² ½ ﬁne",
    "line one\nline two\n\n  indented   words",
    "I'm sure they'll say we've and you'd, isn't it? SHE'S HERE.",
] + CORPUS.splitlines()
PAIRS = [
    ("Who wrote War and Peace?", "Leo Tolstoy wrote War and Peace, published in 1869."),
    ("How tall is Mount Everest?", "Water boils at 100 degrees Celsius at sea level."),
    ("Where is the Eiffel Tower?", "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."),
]


# ---------------------------------------------------------------- byte-level BPE

def bytes_to_unicode():
    """GPT-2's map of bytes to printable characters."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_space(c):
    return c.isspace()


def gpt2_split(s):
    """GPT-2's pre-tokenizer pattern, matched by hand."""
    out, i, n = [], 0, len(s)
    while i < n:
        matched = False
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if s.startswith(c, i):
                out.append(c)
                i += len(c)
                matched = True
                break
        if matched:
            continue
        j = i + 1 if s[i] == " " and i + 1 < n else i
        for cls in (is_letter, is_number, lambda c: not (is_space(c) or is_letter(c) or is_number(c))):
            if j < n and cls(s[j]):
                k = j
                while k < n and cls(s[k]):
                    k += 1
                out.append(s[i:k])
                i = k
                matched = True
                break
        if matched:
            continue
        # White space: \s+(?!\S) leaves the last space before a non-space.
        k = i
        while k < n and is_space(s[k]):
            k += 1
        if k < n and k - i > 1:
            k -= 1
        out.append(s[i:k])
        i = k
    return out


def bpe_train(corpus, merges_wanted):
    b2u = bytes_to_unicode()
    words = collections.Counter()
    for line in corpus.splitlines():
        for w in gpt2_split(line):
            words[tuple(b2u[b] for b in w.encode())] += 1
    merges = []
    for _ in range(merges_wanted):
        pairs = collections.Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        nw = collections.Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            nw[tuple(out)] += c
        words = nw
    return merges


def bpe_word(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        cands = [(ranks.get((a, b), math.inf), i) for i, (a, b) in enumerate(zip(parts, parts[1:]))]
        r, _ = min(cands)
        if r == math.inf:
            break
        a, b = [(x, y) for x, y in zip(parts, parts[1:]) if ranks.get((x, y)) == r][0]
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return parts


def roberta_tokenizer():
    b2u = bytes_to_unicode()
    merges = bpe_train(CORPUS, 150)
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for b in range(256):
        vocab.setdefault(b2u[b], len(vocab))
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab["<mask>"] = len(vocab)
    ranks = {m: i for i, m in enumerate(merges)}

    def encode(s):
        ids = []
        for w in gpt2_split(s):
            ids += [vocab[p] for p in bpe_word([b2u[b] for b in w.encode()], ranks)]
        return ids

    added = [
        {"id": vocab[t], "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
         "normalized": False, "special": True}
        for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
    ]
    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [[a, b] for a, b in merges]},
    }
    return tj, len(vocab), encode


# ---------------------------------------------------------------- Unigram

def proto_fields(buf):
    """(field number, wire type, value) of a serialized protobuf message;
    python3-protobuf is not installed, and two fields are all we read."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(buf, i)
        elif wire == 1:
            v, i = buf[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wire == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield field, wire, v


def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def precompiled_charsmap(model):
    """ModelProto.normalizer_spec (field 3).precompiled_charsmap (field 2)."""
    for f, w, v in proto_fields(model):
        if f == 3 and w == 2:
            for g, x, u in proto_fields(v):
                if g == 2 and x == 2:
                    return u
    raise ValueError("no precompiled_charsmap")


def xlmr_tokenizer(workdir):
    text = os.path.join(workdir, "corpus.txt")
    with open(text, "w") as f:
        f.write(CORPUS * 3)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(input=text, model_writer=model, vocab_size=150, model_type="unigram",
                                   character_coverage=1.0, seed_sentencepiece_size=5000, num_threads=1,
                                   minloglevel=2)
    os.remove(text)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    assert [sp.id_to_piece(i) for i in range(3)] == ["<unk>", "<s>", "</s>"], "unexpected specials"
    vocab = [["<s>", 0.0], ["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    vocab += [[sp.id_to_piece(i), sp.get_score(i)] for i in range(3, sp.get_piece_size())]
    vocab.append(["<mask>", 0.0])
    charsmap = base64.b64encode(precompiled_charsmap(model.getvalue())).decode()
    added = [
        {"id": i, "content": t, "single_word": False, "lstrip": t == "<mask>", "rstrip": False,
         "normalized": False, "special": True}
        for i, t in ((0, "<s>"), (1, "<pad>"), (2, "</s>"), (3, "<unk>"), (len(vocab) - 1, "<mask>"))
    ]
    tj = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": charsmap},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                               "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": False},
    }

    def encode(s):
        # fairseq's offset: every SentencePiece id moves up by one; the
        # unknown piece (SentencePiece id 0) is <unk>, 3.
        return [3 if i == 0 else i + 1 for i in sp.encode(s)]

    return tj, len(vocab), encode


# ---------------------------------------------------------------- the model

def random_roberta(gen, vocab, num_labels):
    # RoBERTa's encoder is BERT's under "roberta.", with one token type;
    # the classification head has no prefix.
    w, linear = bert.random_encoder(gen, "roberta.", vocab=vocab, maxpos=MAXPOS, types=1, embedding_std=0.2)
    linear("classifier.dense", HIDDEN, HIDDEN)
    linear("classifier.out_proj", num_labels, HIDDEN)
    return w


def forward(w, ids):
    """States [T, H] and logits of one unpadded sequence, in float64."""
    p = "roberta."
    g = {k[len(p):]: v.double() for k, v in w.items() if k.startswith(p)}
    ids_t = torch.tensor(ids)
    # create_position_ids_from_input_ids: non-padding tokens count from
    # padding_idx + 1.
    mask = (ids_t != PAD).long()
    pos = torch.cumsum(mask, 0) * mask + PAD
    x = g["embeddings.word_embeddings.weight"][ids_t] + g["embeddings.position_embeddings.weight"][pos]
    x = x + g["embeddings.token_type_embeddings.weight"][torch.zeros_like(ids_t)]
    x = bert.layer_norm(x, g["embeddings.LayerNorm.weight"], g["embeddings.LayerNorm.bias"], EPS)
    x = bert.layers(g, x[None], 0, EPS)[0]

    def lin(name, v):
        return v @ w[name + ".weight"].double().T + w[name + ".bias"].double()

    logits = lin("classifier.out_proj", torch.tanh(lin("classifier.dense", x[0])))
    return x, logits


def config(arch, model_type, vocab, num_labels):
    c = {
        "architectures": [arch], "model_type": model_type, "vocab_size": vocab, "hidden_size": HIDDEN,
        "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "intermediate_size": INTER,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": MAXPOS, "type_vocab_size": 1, "initializer_range": 0.02,
        "layer_norm_eps": EPS, "pad_token_id": PAD, "bos_token_id": 0, "eos_token_id": 2,
        "position_embedding_type": "absolute",
    }
    c["id2label"] = {str(i): f"LABEL_{i}" for i in range(num_labels)}
    c["label2id"] = {f"LABEL_{i}": i for i in range(num_labels)}
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "encoder/roberta/testdata"
    gen = torch.Generator().manual_seed(60)
    expected = {}
    for name, arch, mtype, labels, make in (
        ("tiny-roberta", "RobertaForSequenceClassification", "roberta", 2, lambda: roberta_tokenizer()),
        ("tiny-xlm-roberta", "XLMRobertaForSequenceClassification", "xlm-roberta", 1, lambda: xlmr_tokenizer(out)),
    ):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        tj, vocab, encode = make()
        w = random_roberta(gen, vocab, labels)
        bert.write_safetensors(os.path.join(d, "model.safetensors"), w, torch.float32)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(config(arch, mtype, vocab, labels), f, indent=2)
        with open(os.path.join(d, "tokenizer.json"), "w") as f:
            json.dump(tj, f, ensure_ascii=False, indent=1)
        texts = [{"text": t, "ids": encode(t)} for t in TEXTS]
        pairs = []
        for a, b in PAIRS:
            ids = [0] + encode(a) + [2, 2] + encode(b) + [2]
            states, logits = forward(w, ids)
            pairs.append({"a": a, "b": b, "ids": ids, "logits": logits.tolist(),
                          "states_first": states[0].tolist(), "states_last": states[-1].tolist()})
        expected[name] = {"texts": texts, "pairs": pairs}
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
