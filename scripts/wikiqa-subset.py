#!/usr/bin/env python3
"""Write the first N questions of a WikiQA split as as2 JSONL (standard library only).

    scripts/wikiqa-subset.py ../shared/data/wikiqa/WikiQA-train.tsv.gz 200 > train200.jsonl

The input is the WikiQA TSV (QuestionID, Question, DocumentID, DocumentTitle,
SentenceID, Sentence, Label), gzip'd or not. Questions keep their candidates in
file order; as2 train --dataset jsonl --path reads the output (questions
without a correct candidate are dropped by --train-subset answered).
"""
import gzip, json, sys

path, n = sys.argv[1], int(sys.argv[2])
opener = gzip.open if path.endswith(".gz") else open
order, qs = [], {}
with opener(path, "rt", encoding="utf-8") as f:
    header = f.readline().rstrip("\n").split("\t")
    col = {name: i for i, name in enumerate(header)}
    for line in f:
        r = line.rstrip("\n").split("\t")
        qid = r[col["QuestionID"]]
        if qid not in qs:
            if len(order) == n:
                break
            order.append(qid)
            qs[qid] = {"id": qid, "question": r[col["Question"]], "candidates": []}
        qs[qid]["candidates"].append({"id": r[col["SentenceID"]], "text": r[col["Sentence"]], "label": int(r[col["Label"]])})
for qid in order:
    print(json.dumps(qs[qid], ensure_ascii=False))
