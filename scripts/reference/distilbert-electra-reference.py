#!/usr/bin/python3
"""Tiny random DistilBERT and ELECTRA checkpoints and reference outputs.

Writes, in Hugging Face's layout:

- encoder/distilbert/testdata/tiny-distilbert: a
  DistilBertForSequenceClassification (2 labels) with config.json (dim,
  n_layers, n_heads, hidden_dim, activation), model.safetensors under HF's
  names (distilbert.embeddings.*, distilbert.transformer.layer.N.attention.
  q_lin/k_lin/v_lin/out_lin, sa_layer_norm, ffn.lin1/lin2,
  output_layer_norm, pre_classifier, classifier) stored as float16, and an
  uncased WordPiece vocab.txt; encoder/distilbert/testdata/expected.json;
- encoder/electra/testdata/tiny-electra: an ElectraForSequenceClassification
  (1 label) whose embeddings (embedding_size 16) are narrower than its
  layers (hidden_size 32), with config.json, model.safetensors (electra.*,
  electra.embeddings_project, classifier.dense, classifier.out_proj) stored
  as float16, and a WordPiece tokenizer.json (BertNormalizer,
  BertPreTokenizer); encoder/electra/testdata/expected.json.

Each expected.json holds the WordPiece ids of a few texts and, for a few
question-answer pairs, the ids of [CLS] a [SEP] b [SEP], the first and last
final states and the logits of a plain-PyTorch forward pass in float64 over
the float16-rounded weights.

The models are written out from the papers and the public model code, not
taken from the transformers library (it is not installable here):

- DistilBERT (Sanh et al. 2019, and the public modeling_distilbert.py):
  BERT's post-LN layers without token types, word + learned position
  embeddings, LayerNorm eps 1e-12 throughout, queries scaled by 1/sqrt(d_h)
  before the dot product, and the head classifier(relu(pre_classifier(h_0)));
- ELECTRA (Clark et al. 2020, and the public modeling_electra.py): BERT's
  embeddings at embedding_size, their LayerNorm, a linear embeddings_project
  to hidden_size, BERT's layers (bert-reference.py's), and the head
  out_proj(gelu(dense(h_0))) with the exact (erf) GELU.

The WordPiece tokenizer is wordpiece-reference.py's; the vocabulary is
built here from roberta-reference.py's corpus (specials, every character
alone and as a ##continuation, the most frequent words and suffixes).

Usage (Debian: apt-get install python3-torch python3-sentencepiece):

    /usr/bin/python3 scripts/reference/distilbert-electra-reference.py [encoder]
"""

import collections
import importlib
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
bert = importlib.import_module("bert-reference")
roberta = importlib.import_module("roberta-reference")  # its corpus and texts
wp = importlib.import_module("wordpiece-reference")

HIDDEN, LAYERS, HEADS, INTER = bert.HIDDEN, bert.LAYERS, bert.HEADS, bert.INTER
EMBED = 16  # ELECTRA's embedding_size, below HIDDEN
MAXPOS, TYPES = 64, 2
EPS = 1e-12
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PAD, UNK, CLS, SEP = 0, 1, 2, 3
WORDS = 100  # whole words kept in the vocabulary

TEXTS = roberta.TEXTS
PAIRS = roberta.PAIRS + [
    ("What melts at 0 degrees?", "Ice melts at 0 degrees, and water boils at 100 degrees Celsius."),
]


def build_vocab():
    """Specials, every character of the lowercased corpus alone and as a
    continuation, the commonest suffixes and the WORDS commonest words."""
    words = collections.Counter()
    for line in roberta.CORPUS.splitlines():
        words.update(wp.basic_tokenize(line, True))
    chars = sorted({c for w in words for c in w})
    vocab = list(SPECIALS) + chars + ["##" + c for c in chars]
    vocab += [s for s in ("##ed", "##ing", "##er", "##ly") if s not in vocab]
    for w, _ in sorted(words.items(), key=lambda kv: (-kv[1], kv[0])):
        if len([v for v in vocab if len(v) > 1 and not v.startswith("[") and not v.startswith("##")]) >= WORDS:
            break
        if w not in vocab:
            vocab.append(w)
    assert len(set(vocab)) == len(vocab), "a token twice in the vocabulary"
    return vocab


def rand(gen, *shape, std=0.2, mean=0.0):
    return (torch.randn(*shape, generator=gen, dtype=torch.float64) * std + mean).float()


def linear(w, gen, name, out, inp):
    w[name + ".weight"] = rand(gen, out, inp, std=1 / math.sqrt(inp))
    w[name + ".bias"] = rand(gen, out, std=0.1)


def layernorm(w, gen, name, n):
    w[name + ".weight"] = rand(gen, n, std=0.1, mean=1.0)
    w[name + ".bias"] = rand(gen, n, std=0.1)


# ---------------------------------------------------------------- DistilBERT

def random_distilbert(gen, vocab, num_labels):
    w = {}
    p = "distilbert."
    w[p + "embeddings.word_embeddings.weight"] = rand(gen, vocab, HIDDEN, std=0.5)
    w[p + "embeddings.position_embeddings.weight"] = rand(gen, MAXPOS, HIDDEN, std=0.5)
    layernorm(w, gen, p + "embeddings.LayerNorm", HIDDEN)
    for i in range(LAYERS):
        q = f"{p}transformer.layer.{i}."
        for part in ("q_lin", "k_lin", "v_lin", "out_lin"):
            linear(w, gen, q + "attention." + part, HIDDEN, HIDDEN)
        layernorm(w, gen, q + "sa_layer_norm", HIDDEN)
        linear(w, gen, q + "ffn.lin1", INTER, HIDDEN)
        linear(w, gen, q + "ffn.lin2", HIDDEN, INTER)
        layernorm(w, gen, q + "output_layer_norm", HIDDEN)
    linear(w, gen, "pre_classifier", HIDDEN, HIDDEN)
    linear(w, gen, "classifier", num_labels, HIDDEN)
    return w


def distilbert_forward(w, ids, mask):
    """States [B, T, H] of a padded batch (mask [B, T], 1 = real), float64."""
    g = {k: v.double() for k, v in w.items()}
    p = "distilbert."
    B, T = ids.shape
    lin = lambda y, n: y @ g[n + ".weight"].T + g[n + ".bias"]
    ln = lambda y, n: bert.layer_norm(y, g[n + ".weight"], g[n + ".bias"], EPS)
    x = g[p + "embeddings.word_embeddings.weight"][ids] + g[p + "embeddings.position_embeddings.weight"][torch.arange(T)]
    x = ln(x, p + "embeddings.LayerNorm")
    add = torch.zeros(B, 1, 1, T, dtype=torch.float64).masked_fill(mask[:, None, None, :] == 0, float("-inf"))
    return distilbert_layers(g, x, add), g


def distilbert_layers(g, x, add, lin=None, hidden=HIDDEN, n_layers=LAYERS, n_heads=HEADS):
    """The layers over x [B, T, H]; g holds the weights under their full
    names, add is the additive attention mask. scripts/peers/families.py
    runs them at base sizes with its own lin(y, name)."""
    p = "distilbert."
    B, T, _ = x.shape
    if lin is None:
        lin = lambda y, n: y @ g[n + ".weight"].T + g[n + ".bias"]
    ln = lambda y, n: bert.layer_norm(y, g[n + ".weight"], g[n + ".bias"], EPS)
    dh = hidden // n_heads
    heads = lambda y: y.view(B, T, n_heads, dh).transpose(1, 2)
    for i in range(n_layers):
        n = f"{p}transformer.layer.{i}."
        # DistilBERT scales the queries, not the scores: the same product.
        q = heads(lin(x, n + "attention.q_lin")) / math.sqrt(dh)
        k, v = heads(lin(x, n + "attention.k_lin")), heads(lin(x, n + "attention.v_lin"))
        ctx = (torch.softmax(q @ k.transpose(-1, -2) + add, -1) @ v).transpose(1, 2).reshape(B, T, hidden)
        x = ln(lin(ctx, n + "attention.out_lin") + x, n + "sa_layer_norm")
        f = lin(bert.gelu(lin(x, n + "ffn.lin1")), n + "ffn.lin2")
        x = ln(f + x, n + "output_layer_norm")
    return x


def distilbert_logits(g, first):
    pre = torch.relu(first @ g["pre_classifier.weight"].T + g["pre_classifier.bias"])
    return pre @ g["classifier.weight"].T + g["classifier.bias"]


def distilbert_config(vocab, num_labels):
    return {
        "architectures": ["DistilBertForSequenceClassification"],
        "model_type": "distilbert",
        "vocab_size": vocab,
        "dim": HIDDEN,
        "n_layers": LAYERS,
        "n_heads": HEADS,
        "hidden_dim": INTER,
        "activation": "gelu",
        "dropout": 0.1,
        "attention_dropout": 0.1,
        "seq_classif_dropout": 0.2,
        "qa_dropout": 0.1,
        "max_position_embeddings": MAXPOS,
        "sinusoidal_pos_embds": False,
        "initializer_range": 0.02,
        "pad_token_id": PAD,
        "tie_weights_": True,
        "id2label": {str(i): f"LABEL_{i}" for i in range(num_labels)},
        "label2id": {f"LABEL_{i}": i for i in range(num_labels)},
        "torch_dtype": "float16",
    }


# ---------------------------------------------------------------- ELECTRA

def random_electra(gen, vocab, num_labels):
    w = {}
    p = "electra."
    w[p + "embeddings.word_embeddings.weight"] = rand(gen, vocab, EMBED, std=0.5)
    w[p + "embeddings.position_embeddings.weight"] = rand(gen, MAXPOS, EMBED, std=0.5)
    w[p + "embeddings.token_type_embeddings.weight"] = rand(gen, TYPES, EMBED, std=0.5)
    layernorm(w, gen, p + "embeddings.LayerNorm", EMBED)
    linear(w, gen, p + "embeddings_project", HIDDEN, EMBED)
    for i in range(LAYERS):
        q = f"{p}encoder.layer.{i}."
        for part in ("query", "key", "value"):
            linear(w, gen, q + "attention.self." + part, HIDDEN, HIDDEN)
        linear(w, gen, q + "attention.output.dense", HIDDEN, HIDDEN)
        layernorm(w, gen, q + "attention.output.LayerNorm", HIDDEN)
        linear(w, gen, q + "intermediate.dense", INTER, HIDDEN)
        linear(w, gen, q + "output.dense", HIDDEN, INTER)
        layernorm(w, gen, q + "output.LayerNorm", HIDDEN)
    linear(w, gen, "classifier.dense", HIDDEN, HIDDEN)
    linear(w, gen, "classifier.out_proj", num_labels, HIDDEN)
    return w


def electra_forward(w, ids, types, mask):
    g = {k: v.double() for k, v in w.items()}
    e = {k[len("electra."):]: v for k, v in g.items() if k.startswith("electra.")}
    B, T = ids.shape
    x = e["embeddings.word_embeddings.weight"][ids] + e["embeddings.position_embeddings.weight"][torch.arange(T)] \
        + e["embeddings.token_type_embeddings.weight"][types]
    x = bert.layer_norm(x, e["embeddings.LayerNorm.weight"], e["embeddings.LayerNorm.bias"], EPS)
    x = x @ e["embeddings_project.weight"].T + e["embeddings_project.bias"]
    add = torch.zeros(B, 1, 1, T, dtype=torch.float64).masked_fill(mask[:, None, None, :] == 0, float("-inf"))
    return bert.layers(e, x, add, EPS), g


def electra_logits(g, first):
    h = bert.gelu(first @ g["classifier.dense.weight"].T + g["classifier.dense.bias"])
    return h @ g["classifier.out_proj.weight"].T + g["classifier.out_proj.bias"]


def electra_config(vocab, num_labels):
    return {
        "architectures": ["ElectraForSequenceClassification"],
        "model_type": "electra",
        "vocab_size": vocab,
        "embedding_size": EMBED,
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
        "pad_token_id": PAD,
        "position_embedding_type": "absolute",
        "summary_type": "first",
        "summary_use_proj": True,
        "summary_activation": "gelu",
        "summary_last_dropout": 0.1,
        "id2label": {str(i): f"LABEL_{i}" for i in range(num_labels)},
        "label2id": {f"LABEL_{i}": i for i in range(num_labels)},
        "torch_dtype": "float16",
    }


def tokenizer_json(vocab):
    """tokenizer.json of a lowercasing BERT WordPiece tokenizer."""
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(SPECIALS)]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [CLS], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [SEP], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}},
    }


# ---------------------------------------------------------------- outputs

def run(vocab, forward, logits, with_types):
    """Token ids of TEXTS and, for PAIRS, ids, states and logits computed on
    one padded batch and checked against each pair run alone."""
    index = {t: i for i, t in enumerate(vocab)}
    ids_of = lambda s: [index[t] for t in wp.tokenize(s, index, True)]
    texts = [{"text": s, "ids": ids_of(s)} for s in TEXTS]
    seqs, tys = [], []
    for a, b in PAIRS:
        x, y = ids_of(a), ids_of(b)
        s = [CLS] + x + [SEP] + y + [SEP]
        assert len(s) <= MAXPOS, "a pair is longer than the positions"
        seqs.append(s)
        tys.append([0] * (len(x) + 2) + [1] * (len(y) + 1))
    B, T = len(seqs), max(len(s) for s in seqs)
    ids = torch.zeros(B, T, dtype=torch.long)
    types = torch.zeros(B, T, dtype=torch.long)
    mask = torch.zeros(B, T, dtype=torch.long)
    for i, (s, ty) in enumerate(zip(seqs, tys)):
        ids[i, :len(s)], types[i, :len(s)], mask[i, :len(s)] = torch.tensor(s), torch.tensor(ty), 1
    states, g = forward(ids, types, mask)
    pairs = []
    for i, ((a, b), s, ty) in enumerate(zip(PAIRS, seqs, tys)):
        n = len(s)
        alone, _ = forward(ids[i:i + 1, :n], types[i:i + 1, :n], mask[i:i + 1, :n])
        assert torch.allclose(alone[0], states[i, :n], atol=1e-10), "padding changed a real position"
        st = states[i, :n]
        pairs.append({"a": a, "b": b, "ids": s, "types": ty if with_types else None,
                      "states_first": st[0].tolist(), "states_last": st[-1].tolist(),
                      "logits": logits(g, st[0]).tolist()})
    return {"texts": texts, "pairs": pairs}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "encoder")
    vocab = build_vocab()
    gen = torch.Generator().manual_seed(20191002)

    # Stored in float16: the reference uses the rounded weights.
    w = {k: v.half().float() for k, v in random_distilbert(gen, len(vocab), 2).items()}
    d = os.path.join(root, "distilbert", "testdata", "tiny-distilbert")
    os.makedirs(d, exist_ok=True)
    bert.write_safetensors(os.path.join(d, "model.safetensors"), w, torch.float16)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(distilbert_config(len(vocab), 2), f, indent=2)
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab) + "\n")
    out = run(vocab, lambda ids, types, mask: distilbert_forward(w, ids, mask), distilbert_logits, False)
    with open(os.path.join(root, "distilbert", "testdata", "expected.json"), "w") as f:
        json.dump({"torch": torch.__version__, "models": {"tiny-distilbert": out}}, f)

    w = {k: v.half().float() for k, v in random_electra(gen, len(vocab), 1).items()}
    d = os.path.join(root, "electra", "testdata", "tiny-electra")
    os.makedirs(d, exist_ok=True)
    bert.write_safetensors(os.path.join(d, "model.safetensors"), w, torch.float16)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(electra_config(len(vocab), 1), f, indent=2)
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(tokenizer_json(vocab), f, indent=1, ensure_ascii=False)
    out = run(vocab, lambda ids, types, mask: electra_forward(w, ids, types, mask), electra_logits, True)
    with open(os.path.join(root, "electra", "testdata", "expected.json"), "w") as f:
        json.dump({"torch": torch.__version__, "models": {"tiny-electra": out}}, f)


if __name__ == "__main__":
    main()
