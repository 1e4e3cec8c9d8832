#!/usr/bin/env python3
"""Writes a JSONL question file with each candidate's text extended by the
candidate before it (results/default-context.md): in a document, the
sentence before; the first candidate keeps its own text. Ids, labels and
order stay, so a run of the written file scores the original questions.

    python3 scripts/default-context.py IN.jsonl OUT.jsonl
"""
import json
import os
import sys


def main(src, dst):
    with open(src, encoding="utf-8") as f, open(dst + ".tmp", "w", encoding="utf-8") as out:
        for line in f:
            q = json.loads(line)
            cands = q["candidates"]
            texts = [c["text"] for c in cands]
            for i, c in enumerate(cands):
                if i > 0:
                    c["text"] = texts[i - 1] + " " + texts[i]
            out.write(json.dumps(q, ensure_ascii=False) + "\n")
    os.replace(dst + ".tmp", dst)


if __name__ == "__main__":
    main(*sys.argv[1:])
