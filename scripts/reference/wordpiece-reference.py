#!/usr/bin/env python3
"""Reference WordPiece (BERT) tokenization for text/wordpiece's tests.

Install: nothing; Python 3 standard library only (unicodedata, json, gzip,
zipfile). Run from the repository root:

    python3 scripts/reference/wordpiece-reference.py \
        ../shared/data/bert-vocab/bert-base-uncased-vocab.txt \
        ../shared > text/wordpiece/testdata/bert-uncased-ids.json

The first argument is a BERT vocab.txt, the second the shared/ folder that
holds data/wikiqa, data/squad and data/trecqa (sentences are drawn from them
deterministically, plus hand-written hard cases).

The tokenizer below is written from the published algorithm: BasicTokenizer +
WordpieceTokenizer of google-research/bert tokenization.py, with one choice
taken from Hugging Face's BertTokenizer: a character is a control character
when its category starts with "C" (Cc, Cf, Co, Cn, Cs), not only Cc/Cf as in
the Google code, because Hugging Face's tokenizer.json/Rust tokenizers do the
same and that is what most BERT checkpoints are served with.
"""

import gzip
import json
import sys
import unicodedata
import zipfile


def is_whitespace(ch):
    if ch in (" ", "\t", "\n", "\r"):
        return True
    return unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in ("\t", "\n", "\r"):
        return False
    return unicodedata.category(ch).startswith("C")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def clean_text(text):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or is_control(ch):
            continue
        out.append(" " if is_whitespace(ch) else ch)
    return "".join(out)


def split_cjk(text):
    out = []
    for ch in text:
        if is_cjk(ord(ch)):
            out.extend((" ", ch, " "))
        else:
            out.append(ch)
    return "".join(out)


def strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def split_on_punc(token):
    out = []
    start_new = True
    for ch in token:
        if is_punctuation(ch):
            out.append([ch])
            start_new = True
        else:
            if start_new:
                out.append([])
            start_new = False
            out[-1].append(ch)
    return ["".join(x) for x in out]


def basic_tokenize(text, lower):
    text = split_cjk(clean_text(text))
    tokens = []
    for tok in text.strip().split():
        if lower:
            tok = strip_accents(tok.lower())
        tokens.extend(split_on_punc(tok))
    return " ".join(tokens).strip().split()


def wordpiece(token, vocab, unk="[UNK]", max_chars=100):
    chars = list(token)
    if len(chars) > max_chars:
        return [unk]
    out = []
    start = 0
    while start < len(chars):
        end = len(chars)
        cur = None
        while start < end:
            sub = "".join(chars[start:end])
            if start > 0:
                sub = "##" + sub
            if sub in vocab:
                cur = sub
                break
            end -= 1
        if cur is None:
            return [unk]
        out.append(cur)
        start = end
    return out


def tokenize(text, vocab, lower=True):
    out = []
    for tok in basic_tokenize(text, lower):
        out.extend(wordpiece(tok, vocab))
    return out


HARD = [
    "",
    " ",
    "Café Münchën",
    "naïve résumé coöperate façade",
    "Ångström, Øresund, Łódź, Ærø",
    "İstanbul ΣΟΦΟΣ ΟΔΟΣ. σοφος",
    "東京は日本の首都です。",
    "北京大学 and 清华大学",
    "한국어 텍스트",
    "Привет, мир!",
    "مرحبا بالعالم",
    "שלום עולם",
    "हिन्दी भाषा",
    "I love pizza 🍕🍕 and 😀!",
    "👍🏽 thumbs up",
    "control\x00chars\x07here\x1b[0m",
    "zero\u200bwidth\u200cjoiner\u200dtest",
    "soft\u00adhyphen",
    "replacement \ufffd char",
    "private \ue000 use",
    "tabs\tand\nnewlines\r\nmixed",
    "multiple     spaces   here",
    "nbsp\u00a0between\u2003em space",
    "line\u2028separator\u2029para",
    "don't can't won't I'm you're",
    "U.S.A. and e.g. i.e. Mr. Smith",
    "1,000,000 dollars and 3.14159 and 1990s",
    "$5.99 (50% off!) #hashtag @user",
    "!!!???...,,,;;;:::",
    "a--b---c",
    "\"quoted\" 'single' «guillemets» „German“",
    "email@example.com http://example.org/path?q=1&r=2",
    "supercalifragilisticexpialidocious",
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    "a" * 100,
    "b" * 101,
    "x" * 250 + " short",
    "antidisestablishmentarianism" * 4,
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ １２３",
    "ﬁ ligature and ½ fraction and ² superscript",
    "C++ and C# and .NET",
    "[CLS] [SEP] [MASK] [UNK] [PAD]",
    "under_score and hyphen-ated and slash/separated",
    "~`^|\\{}<>=+*&",
    "¿Qué? ¡Sí!",
    "Ünïcödé ÀÉÎÕÜ àéîõü",
    "Straße Maß",
    "ǅ ǈ titlecase",
    "Hello\u0301 combining at start",
    "\u0301\u0302 lone marks",
    "日本語とEnglishのmix",
    "🇺🇸 flag 🏳️‍🌈",
    "१२३ ٤٥٦ digits",
    "The year 2024–2025 — dash",
    "…ellipsis… and • bullet",
    "\t\n\r",
    "HELLO WORLD",
    "x",
    "##",
    "##ing",
]


def sentences(shared):
    out = []
    with gzip.open(shared + "/data/wikiqa/WikiQA-test.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        rows = [line.rstrip("\n").split("\t") for line in f]
    seen = set()
    for r in rows[::37]:
        for s in (r[5], r[1]):
            if s not in seen:
                seen.add(s)
                out.append(s)
    out = out[:150]
    with zipfile.ZipFile(shared + "/data/squad/dev-v1.1.json.zip") as z:
        squad = json.loads(z.read("dev-v1.1.json"))
    qs, ctx = [], []
    for art in squad["data"]:
        for p in art["paragraphs"]:
            ctx.append(p["context"])
            for qa in p["qas"]:
                qs.append(qa["question"])
    out += qs[::100][:80]
    out += ctx[::200][:10]
    with open(shared + "/data/trecqa/mcrisc-jsonl/test.jsonl", encoding="utf-8") as f:
        trec = [json.loads(line) for line in f]
    for item in trec[::8][:25]:
        out.append(item["question"])
        out.append(item["candidates"][0]["sentence"])
    return out


def main():
    vocab_path, shared = sys.argv[1], sys.argv[2]
    with open(vocab_path, encoding="utf-8") as f:
        toks = [line.rstrip("\n") for line in f]
    vocab = {t: i for i, t in enumerate(toks)}
    cases = []
    for s in sentences(shared) + HARD:
        pieces = tokenize(s, vocab)
        cases.append({"text": s, "tokens": pieces, "ids": [vocab[p] for p in pieces]})
    head = {
        "vocab": "bert-base-uncased-vocab.txt",
        "lowercase": True,
        "generator": "scripts/reference/wordpiece-reference.py",
        "python_unicode": unicodedata.unidata_version,
    }
    # One case a line keeps the fixture's diffs readable.
    w = sys.stdout.write
    w(json.dumps(head, ensure_ascii=False)[:-1] + ',"cases":[\n')
    w(",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases))
    w("\n]}\n")


if __name__ == "__main__":
    main()
