#!/usr/bin/env python3
"""Answer triggering of a calibrated ranker on questions about paragraphs it never trained on.

  scripts/trigger-squad2.py AS2 OUTDIR [RANK FLAGS...]

The questions are those of the SQuAD 2.0 half dev in $AS2_DATA
(squad/v2.0-cs224n-dev-half), on the 8 of its 16 articles that lie in
SQuAD-sent's test half (dataset/squad/halves.tsv): 3,107 questions, 1,522 of
them written to have no answer in their paragraph. The built-in model trained
on SQuAD-sent's train half only. Each question's candidates are its
paragraph's sentences (as2 data augment --subset all --size 1). AS2 rank
--format json ranks them, with RANK FLAGS (default: the built-in model and
its calibration). The score is the WikiQA paper's: a question is answered
correctly when the ranker answers and its top sentence is correct;
precision is over the questions answered, and recall over the questions
that have a correct sentence. Nothing is fitted here.
"""
import gzip
import json
import os
import subprocess
import sys


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {done.stderr.strip()}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    as2, out, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = os.environ.get("AS2_DATA") or sys.exit("set AS2_DATA to the data folder")
    here = os.path.dirname(os.path.abspath(__file__))
    halves = {}
    with open(os.path.join(here, "..", "dataset", "squad", "halves.tsv")) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(fields) >= 2:
                halves[fields[0]] = fields[1]
    with gzip.open(os.path.join(data, "squad", "v2.0-cs224n-dev-half", "dev-v2.0.json.gz")) as f:
        v2 = json.load(f)
    test = [a for a in v2["data"] if halves.get(a["title"]) == "test"]
    os.makedirs(out, exist_ok=True)
    squad, questions, ranked = (os.path.join(out, n) for n in ("squad2-test-articles.json", "questions.jsonl", "ranked.jsonl"))
    with open(squad, "w") as f:
        json.dump({"version": v2["version"], "data": test}, f)
    run([as2, "data", "augment", "--dataset", "squad", "--path", squad, "--subset", "all", "--size", "1", "--out", questions])
    run([as2, "rank", "--input", questions, "--format", "json", "--output", ranked] + flags)
    gold = {}
    with open(questions) as f:
        for line in f:
            q = json.loads(line)
            gold[q["id"]] = {c["id"]: c["label"] for c in q["candidates"]}
    has = answered = right = top_right = 0
    with open(ranked) as f:
        for line in f:
            r = json.loads(line)
            labels = gold[r["id"]]
            has += any(v > 0 for v in labels.values())
            ok = labels[r["ranking"][0]["id"]] > 0
            top_right += ok
            if r.get("answer") is None:
                sys.exit("the ranking has no answer field: rank with a calibration (the built-in model, or --calibration)")
            if r["answer"]:
                answered += 1
                right += ok
    p = right / answered if answered else 0
    rc = right / has if has else 0
    f1 = 2 * p * rc / (p + rc) if p + rc else 0
    print(f"{len(test)} articles, {len(gold)} questions, {has} with a correct sentence; "
          f"top sentence correct for {top_right} of them")
    print(f"answered {answered}, correctly {right}: precision {100 * p:.2f}, recall {100 * rc:.2f}, F1 {100 * f1:.2f}")


if __name__ == "__main__":
    main()
