#!/usr/bin/python3
"""Latency and success@N of as2 serve's POST /v1/retrieve on a ReQA pool.

Sends the first N questions of a pool (as2 data reqa) one at a time, k 10,
optionally with a rerank stage and its depth, and prints the client-side p50
and p99 latency and success@1/5/10 against the questions' gold answers. The
index must be served as "reqa":

    ./as2 serve --index reqa=/tmp/reqa-bm25.idx
    python3 scripts/retrieve-latency.py /tmp/reqa-test.jsonl http://127.0.0.1:8080/v1/retrieve 300 [RANKER [DEPTH]]

The first N questions come from the first articles of the pool, not a random
sample: the success figures are for comparing settings, not the table's.
"""
import json
import sys
import time
import urllib.request

pool, url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rerank = sys.argv[4] if len(sys.argv) > 4 else ""
depth = int(sys.argv[5]) if len(sys.argv) > 5 else 0
qs = [r for r in map(json.loads, open(pool)) if r["type"] == "question"][:n]
lat, hits = [], {1: 0, 5: 0, 10: 0}
for q in qs:
    body = {"index": "reqa", "question": q["text"], "k": 10}
    if rerank:
        body["rerank"] = rerank
        if depth:
            body["depth"] = depth
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    out = json.load(urllib.request.urlopen(req))
    lat.append((time.perf_counter() - t) * 1000)
    ids = [r["id"] for r in out["results"]]
    for k in hits:
        hits[k] += any(i in q["gold"] for i in ids[:k])
lat.sort()


def p(f):
    return lat[min(len(lat) - 1, int(f * len(lat)))]


print(f"rerank={rerank or 'none'} depth={depth or 'default'} questions={len(qs)} "
      f"p50={p(0.5):.1f}ms p99={p(0.99):.1f}ms " + " ".join(f"S@{k}={100 * v / len(qs):.2f}" for k, v in hits.items()))
