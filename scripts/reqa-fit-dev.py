#!/usr/bin/env python3
"""A dev pool for ReQA's test-half condition (issue 12).

The test-half condition trains on SQuAD v1.1 dev's train half, so the train
half's pool cannot be its dev pool. This script splits the train half's
articles in two with a seeded shuffle: SQuAD questions of the "fit" articles
train, and the ReQA pool of the other articles is the dev pool. Nothing of
the test half is read.

    ./as2 data reqa --half train --out reqa-dev.jsonl
    ./as2 data augment --dataset squad --split train --size 1 --out squad-train.jsonl
    ./as2 data augment --dataset wikiqa --split train --subset answered --size 1 --out wikiqa-train.jsonl
    scripts/reqa-fit-dev.py reqa-dev.jsonl squad-train.jsonl OUTDIR   # OUTDIR/squad-{fit,dev}.jsonl, OUTDIR/pool-dev.jsonl
    cat wikiqa-train.jsonl OUTDIR/squad-fit.jsonl >train.jsonl
    ./as2 train --arch dual --objective in-batch-softmax --dataset jsonl --path train.jsonl \\
      --also trecqa:train-all --dev-split none --dev-pool OUTDIR/pool-dev.jsonl ...

DEV_ARTICLES (default 8 of the train half's 25) and SEED (default 1) set the
split. OUTDIR/squad-dev.jsonl holds the dev articles' SQuAD-sent questions,
a dev set for rerankers trained on squad-fit.jsonl (scripts/default-model.sh).
"""
import json
import os
import random
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: reqa-fit-dev.py TRAIN_HALF_POOL SQUAD_TRAIN_JSONL OUTDIR")
    pool_path, squad_path, out = sys.argv[1:]
    n_dev = int(os.environ.get("DEV_ARTICLES", "8"))
    seed = int(os.environ.get("SEED", "1"))
    with open(pool_path, encoding="utf-8") as f:
        pool = [json.loads(line) for line in f]
    if not pool or pool[0].get("type") != "header" or pool[0].get("split") != "train":
        sys.exit(f"{pool_path}: want the train half's pool (as2 data reqa --half train)")
    article = {a["id"]: a["article"] for a in pool if a["type"] == "answer"}
    articles = sorted(set(article.values()))
    random.Random(seed).shuffle(articles)
    dev = set(articles[:n_dev])
    print(f"{len(articles)} articles; dev: {', '.join(sorted(dev))}")

    os.makedirs(out, exist_ok=True)
    fit = 0
    with open(squad_path, encoding="utf-8") as f, \
            open(os.path.join(out, "squad-fit.jsonl"), "w", encoding="utf-8") as w, \
            open(os.path.join(out, "squad-dev.jsonl"), "w", encoding="utf-8") as wdev:
        for n, line in enumerate(f, 1):
            q = json.loads(line)
            gold = [c["id"] for c in q["candidates"] if c.get("label") == 1]
            if not gold or gold[0] not in article:
                sys.exit(f"{squad_path}:{n}: no gold sentence of the train half's pool")
            if article[gold[0]] not in dev:
                w.write(line)
                fit += 1
            else:
                wdev.write(line)
    answers = [a for a in pool if a["type"] == "answer" and a["article"] in dev]
    ids = {a["id"] for a in answers}
    questions = [q for q in pool if q["type"] == "question" and all(g in ids for g in q["gold"])]
    header = dict(pool[0], answers=len(answers), questions=len(questions))
    with open(os.path.join(out, "pool-dev.jsonl"), "w", encoding="utf-8") as w:
        for x in [header] + answers + questions:
            w.write(json.dumps(x, ensure_ascii=False) + "\n")
    print(f"fit: {fit} SQuAD questions; dev pool: {len(answers)} answers, {len(questions)} questions")


if __name__ == "__main__":
    main()
