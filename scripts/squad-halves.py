#!/usr/bin/env python3
"""Split the 48 articles of SQuAD v1.1 dev into two article-disjoint halves.

as2 has no SQuAD train set, so SQuAD-sent training and testing use halves of
the dev set that share no article: `--dataset squad --split train` and
`--split test`. This script made the checked-in list
dataset/squad/halves.tsv (title, half); it is kept to document the procedure,
which is deterministic: shuffle the titles with Python's random.Random(1),
then give each article, in that order, to the half with fewer questions so
far (ties: train), so that the halves have about as many questions.

Usage: python3 scripts/squad-halves.py ../shared/data/squad/dev-v1.1.json.zip > dataset/squad/halves.tsv
Needs only Python 3's standard library.
"""
import json
import random
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.endswith(".json"))
    data = json.loads(z.read(name))["data"]
counts = {a["title"]: sum(len(p["qas"]) for p in a["paragraphs"]) for a in data}
titles = [a["title"] for a in data]
random.Random(1).shuffle(titles)
size = {"train": 0, "test": 0}
print("# SQuAD v1.1 dev articles and their half (made by scripts/squad-halves.py)")
print("# title\thalf\tquestions")
for t in titles:
    half = "train" if size["train"] <= size["test"] else "test"
    size[half] += counts[t]
    print(f"{t}\t{half}\t{counts[t]}")
print(f"# train {size['train']} questions, test {size['test']} questions", file=sys.stderr)
