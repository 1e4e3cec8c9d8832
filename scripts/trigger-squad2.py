#!/usr/bin/env python3
"""Answer triggering of a calibrated ranker on questions about paragraphs it never trained on.

  scripts/trigger-squad2.py AS2 OUTDIR [AS2 TRIGGER FLAGS...]

The questions are those of the SQuAD 2.0 half dev in $AS2_DATA
(squad/v2.0-cs224n-dev-half), on the 8 of its 16 articles that lie in
SQuAD-sent's test half (dataset/squad/halves.tsv): 3,107 questions, 1,522 of
them written to have no answer in their paragraph. The built-in model trained
on SQuAD-sent's train half only. This script writes those articles to
OUTDIR/squad2-test-articles.json and runs

  AS2 trigger --dataset squad --path OUTDIR/squad2-test-articles.json FLAGS

FLAGS default to the built-in model and its own calibration (--ranker builtin
--calibration builtin), so nothing is fitted: each question's candidates are
its paragraph's sentences, and as2 trigger prints precision, recall and F1.
"""
import gzip
import json
import os
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    as2, out, flags = sys.argv[1], sys.argv[2], sys.argv[3:] or ["--ranker", "builtin", "--calibration", "builtin"]
    data = os.environ.get("AS2_DATA") or sys.exit("set AS2_DATA to the data folder")
    halves = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dataset", "squad", "halves.tsv")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(fields) >= 2:
                halves[fields[0]] = fields[1]
    with gzip.open(os.path.join(data, "squad", "v2.0-cs224n-dev-half", "dev-v2.0.json.gz")) as f:
        v2 = json.load(f)
    os.makedirs(out, exist_ok=True)
    articles = os.path.join(out, "squad2-test-articles.json")
    with open(articles, "w") as f:
        json.dump({"version": v2["version"], "data": [a for a in v2["data"] if halves.get(a["title"]) == "test"]}, f)
    os.execvp(as2, [as2, "trigger", "--dataset", "squad", "--path", articles] + flags)


if __name__ == "__main__":
    main()
