#!/usr/bin/env python3
"""Writes a blend file that gives each of several models an equal say.

  scripts/equal-say.py AS2 QUESTIONS.jsonl OUT.json MODEL...

Each model ranks QUESTIONS (as2 rank --raw-scores; labels are not read), and
its weight is 1/s, s being the mean over questions of the standard deviation
of its raw scores within a question: after weighting, every model spreads a
question's candidates as widely as the others, whatever the scale of its
scores (a cross-encoder's logits, a dual encoder's cosines). The blend (as2's
blend JSON, models named relative to OUT's folder) is one ranker that
as2 tune blend can weigh against others: form P of the built-in model
(results/default-listwise-dual.md).
"""
import json
import os
import statistics
import subprocess
import sys


def spread(as2, questions, model):
    cmd = [as2, "rank", "--input", questions, "--raw-scores", "--format", "json", "--model", model]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        sys.exit(f"{as2}: {e}")
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {done.stderr.strip()}")
    out = done.stdout
    sds = []
    for line in out.splitlines():
        scores = [r["score"] for r in json.loads(line)["ranking"] if r["score"] is not None]
        if len(scores) > 1:
            sds.append(statistics.pstdev(scores))
    if not sds or statistics.mean(sds) <= 0:
        sys.exit(f"{model}: no question of {questions} has scores that differ")
    return statistics.mean(sds)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    as2, questions, out, models = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    folder = os.path.dirname(os.path.abspath(out))
    weights = []
    for m in models:
        s = spread(as2, questions, m)
        print(f"{m}: mean within-question sd {s:.4f}, weight {1 / s:.4f}", file=sys.stderr)
        weights.append(1 / s)
    spec = {"rankers": [os.path.relpath(os.path.abspath(m), folder) for m in models],
            "weights": weights, "bias": 0}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)  # atomic: never a half-written blend


if __name__ == "__main__":
    main()
