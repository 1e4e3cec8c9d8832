#!/usr/bin/python3
"""Reference SentencePiece unigram segmentation for text/sentencepiece's tests.

Install (Debian; it installs for /usr/bin/python3, not a pyenv python):

    apt-get update && apt-get install -y python3-sentencepiece

Run from the repository root:

    /usr/bin/python3 scripts/reference/sentencepiece-reference.py ../shared \
        > text/sentencepiece/testdata/spm-unigram.json

It trains a tiny unigram model (vocab 800, default nmt_nfkc normalization,
character coverage 0.9995) on WikiQA training sentences from shared/, dumps
its pieces (text, score, type) and records spm's segmentation (pieces and ids)
of ~200 sentences: held-out WikiQA test sentences, SQuAD questions and hard
cases (accents, CJK, emoji, controls, white space runs, unknown characters).
The model file itself is written to a temporary folder and not kept.
"""

import gzip
import json
import os
import sys
import tempfile
import zipfile

import sentencepiece as spm

HARD = [
    "",
    " ",
    "   ",
    "a",
    "  leading and trailing  ",
    "multiple     spaces   between",
    "tabs\tand\nnewlines\r\nbecome spaces",
    "Café Münchën naïve résumé",
    "Ångström Øresund Łódź",
    "東京は日本の首都です。",
    "北京大学 and 清华大学",
    "Привет, мир!",
    "I love pizza 🍕🍕 and 😀!",
    "1234567890 3.14159 1,000,000 2024-05-01",
    "!!!???...,,,;;;:::",
    "a--b---c",
    "\"quoted\" 'single' «guillemets» “curly” ‘quotes’",
    "don't can't won't I'm you're",
    "U.S.A. e.g. i.e. Mr. Smith",
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ １２３",
    "ﬁ ligature ½ fraction ² superscript ™",
    "<s> </s> <unk> unknown",
    "nul\x00 and bell\x07 and del\x7f",
    "zero\u200bwidth\u200cjoin\u200dend",
    "\u00a0nbsp\u2003emspace\u3000ideographic",
    "ӔӕҖҗ ᚠᚢᚦ runes",
    "supercalifragilisticexpialidocious",
    "x" * 120,
    "The quick brown fox jumps over the lazy dog.",
    "THE QUICK BROWN FOX",
    "~`^|\\{}<>=+*&$#@%",
    "¿Qué? ¡Sí!",
    "hello\u0301 combining",
    "▁ already a separator ▁▁",
    "C++ C# .NET node.js",
]


def main():
    shared = sys.argv[1]
    with gzip.open(shared + "/data/wikiqa/WikiQA-train.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        train = sorted({line.split("\t")[5] for line in f})
    with gzip.open(shared + "/data/wikiqa/WikiQA-test.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        test = [line.rstrip("\n").split("\t")[5] for line in f]
    with zipfile.ZipFile(shared + "/data/squad/dev-v1.1.json.zip") as z:
        squad = json.loads(z.read("dev-v1.1.json"))
    qs = [qa["question"] for a in squad["data"] for p in a["paragraphs"] for qa in p["qas"]]

    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.txt")
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("\n".join(train[::3]) + "\n")
        prefix = os.path.join(tmp, "m")
        spm.SentencePieceTrainer.train(
            input=corpus,
            model_prefix=prefix,
            vocab_size=800,
            model_type="unigram",
            character_coverage=0.9995,
            num_threads=1,
            seed_sentencepiece_size=100000,
            minloglevel=2,
        )
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")

    def kind(i):
        if sp.is_unknown(i):
            return "unknown"
        if sp.is_control(i):
            return "control"
        if sp.is_unused(i):
            return "unused"
        if sp.is_byte(i):
            return "byte"
        return "normal"

    pieces = [[sp.id_to_piece(i), sp.get_score(i), kind(i)] for i in range(sp.get_piece_size())]
    sentences = test[::60][:110] + qs[::100][:70] + HARD
    cases = []
    for s in sentences:
        cases.append({"text": s, "pieces": sp.encode(s, out_type=str), "ids": sp.encode(s)})
    head = {
        "generator": "scripts/reference/sentencepiece-reference.py",
        "sentencepiece": spm.__version__,
        "normalization": "nmt_nfkc",
        "add_dummy_prefix": True,
        "remove_extra_whitespaces": True,
    }
    w = sys.stdout.write
    # One piece or case a line keeps the fixture's diffs readable.
    w(json.dumps(head, ensure_ascii=False)[:-1] + ',"pieces":[\n')
    w(",\n".join(json.dumps(p, ensure_ascii=False) for p in pieces))
    w('\n],"cases":[\n')
    w(",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases))
    w("\n]}\n")


if __name__ == "__main__":
    main()
