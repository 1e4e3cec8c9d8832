#!/usr/bin/env python3
"""Alternatives to the built-in ranker's blend (issue 14), on score dumps.

Reads SCORES/RANKER.SET.json (as2 rank --raw-scores --format json, one line
a question) and SETS/SET.jsonl (the questions and labels), both written by
scripts/default-blend-study.sh, and prints a Markdown table of MAP on the
held-out dev and test sets of the cross-dataset protocol for each form:

  in-domain fit   the shipped form: a listwise blend of the model with wo,
                  idf-overlap and bm25, fitted on the dev sets of what the
                  variant trained on (scripts/default-heldout.sh's blend)
  stacked         the same blend fitted on out-of-domain predictions only:
                  each other dataset scored by the variant that never saw it
  z-scored        features standardised per question before the fit
  gated           bm25 and idf-overlap also enter multiplied by the model's
                  uncertainty on the question (1 - its top softmax weight),
                  so the fit may lean on the words when the model is unsure
  lexical gate    bm25 and idf-overlap also enter multiplied by BM25's
                  confidence on the question, (b1 - b2) / b1 over its two
                  best candidates' scores: questions written from the
                  passage (SQuAD) tend to have one candidate that shares
                  far more rare words than the rest, search queries
                  (WikiQA) do not
  coverage gate   the same with the question's word coverage instead: the
                  most question words one candidate shares (wo) over the
                  question's distinct words (a regex count, close to but
                  not exactly as2's tokens)
  model + 2 bm25  a fixed rule, standardised per question, no fit

Pure Python (no numpy): the fit is a conditional logit (listwise softmax
over a question's candidates, every answer a target), by Adam. MAP breaks
ties by candidate order, as as2's metrics do.
"""
import json
import math
import os
import re
import sys

LEX = ["wo", "idf-overlap", "bm25"]
SCORES = os.environ.get("SCORES", "out/blend-study/scores")
SETS = os.environ.get("SETS", "out/blend-study")


def load(ranker, sset):
    """[(labels, [model, wo, idf-overlap, bm25] score lists, then
    [the question's distinct words])] of the questions with an answer."""
    cols = []
    for r in [ranker] + LEX:
        d = {}
        with open(f"{SCORES}/{r}.{sset}.json") as f:
            for line in f:
                j = json.loads(line)
                s = [0.0] * len(j["ranking"])
                for e in j["ranking"]:
                    s[e["index"]] = e["score"]
                d[j["id"]] = s
        cols.append(d)
    out = []
    with open(f"{SETS}/{sset}.jsonl") as f:
        for line in f:
            q = json.loads(line)
            lab = [c["label"] for c in q["candidates"]]
            if any(y > 0 for y in lab):
                words = len(set(re.findall(r"\w+", q["question"].lower())))
                out.append((lab, [c[q["id"]] for c in cols] + [[words]]))
    return out


def average_precision(lab, s):
    order = sorted(range(len(s)), key=lambda i: (-s[i], i))
    hits = total = 0
    for k, i in enumerate(order):
        if lab[i] > 0:
            hits += 1
            total += hits / (k + 1)
    return total / sum(1 for y in lab if y > 0)


def mean_ap(data, score):
    return 100 * sum(average_precision(lab, score(cols)) for lab, cols in data) / len(data)


def znorm(s):
    mu = sum(s) / len(s)
    sd = math.sqrt(sum((x - mu) ** 2 for x in s) / len(s))
    return [(x - mu) / sd if sd > 0 else 0.0 for x in s]


def raw(cols):
    return cols[:4]


def zscored(cols):
    return [znorm(c) for c in cols[:4]]


def gated(cols):
    m = cols[0]
    top = max(m)
    u = 1 - 1 / sum(math.exp(x - top) for x in m)
    return lexical_times(cols, u)


def lexical_times(cols, g):
    """The four scores, then bm25 and idf-overlap times g."""
    return cols[:4] + [[x * g for x in cols[3]], [x * g for x in cols[2]]]


def lexical_margin(bm25):
    """(b1 - b2) / b1 of the two best BM25 scores, 0 when b1 <= 0."""
    top = sorted(bm25, reverse=True) + [0.0]
    return (top[0] - top[1]) / top[0] if top[0] > 0 else 0.0


def lexical_gated(cols):
    return lexical_times(cols, lexical_margin(cols[3]))


def coverage_gated(cols):
    return lexical_times(cols, max(cols[1]) / max(cols[4][0], 1))


def fit(data, features, l2=1e-3, iters=200, lr=0.05):
    rows = []
    for lab, cols in data:
        X = features(cols)
        rows.append(([[f[i] for f in X] for i in range(len(lab))], lab))
    d = len(rows[0][0][0])
    w, m, v = [0.0] * d, [0.0] * d, [0.0] * d
    for t in range(1, iters + 1):
        g = [0.0] * d
        for X, lab in rows:
            z = [sum(wk * xk for wk, xk in zip(w, x)) for x in X]
            top = max(z)
            e = [math.exp(a - top) for a in z]
            S = sum(e)
            npos = sum(1 for y in lab if y > 0)
            for i, x in enumerate(X):
                c = e[i] / S - (1 / npos if lab[i] > 0 else 0)
                for k in range(d):
                    g[k] += c * x[k]
        for k in range(d):
            gk = g[k] / len(rows) + l2 * w[k]
            m[k] = 0.9 * m[k] + 0.1 * gk
            v[k] = 0.999 * v[k] + 0.001 * gk * gk
            w[k] -= lr * (m[k] / (1 - 0.9**t)) / (math.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)
    return w


def linear(w, features):
    def score(cols):
        X = features(cols)
        return [sum(wk * f[i] for wk, f in zip(w, X)) for i in range(len(cols[0]))]

    return score


# Each dataset: the variant that never saw it, its held-out dev and test sets,
# and the in-domain dev sets its blend is fitted on.
HELD = {
    "WikiQA": ("no-wikiqa", "wikiqa-dev", "wikiqa-test", ["trecqa-dev"]),
    "TrecQA": ("no-trecqa", "trecqa-dev", "trecqa-test", ["wikiqa-dev"]),
    "SQuAD-sent": ("no-squad", "squad-train-1000", "squad-test", ["wikiqa-dev", "trecqa-dev"]),
}


def main():
    print("| held out | form | weights (model, wo, idf-overlap, bm25, ...) | dev MAP | test MAP |")
    print("|---|---|---|---|---|")
    for name, (variant, dev, test, indomain) in HELD.items():
        dev_data, test_data = load(variant, dev), load(variant, test)
        fitted = sum((load(variant, s) for s in indomain), [])
        # Out-of-domain predictions: every other dataset's held-out dev set,
        # scored by the variant that never saw it.
        stacked = sum((load(v, d) for n, (v, d, _, _) in HELD.items() if n != name), [])
        forms = [("model alone", None, lambda c: c[0]), ("bm25 alone", None, lambda c: c[3])]
        for label, data, features in [
            ("in-domain fit (shipped form)", fitted, raw),
            ("stacked on out-of-domain predictions", stacked, raw),
            ("in-domain fit, z-scored", fitted, zscored),
            ("in-domain fit, gated by model uncertainty", fitted, gated),
            ("in-domain fit, gated by BM25's margin", fitted, lexical_gated),
            ("in-domain fit, gated by word coverage", fitted, coverage_gated),
        ]:
            w = fit(data, features)
            forms.append((label, w, linear(w, features)))
        forms.append(("model + 2 bm25, z-scored, no fit", [1, 0, 0, 2], linear([1, 0, 0, 2], zscored)))
        for label, w, score in forms:
            ws = ", ".join(f"{x:.3f}" for x in w) if w else ""
            print(f"| {name} | {label} | {ws} | {mean_ap(dev_data, score):.2f} | {mean_ap(test_data, score):.2f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
