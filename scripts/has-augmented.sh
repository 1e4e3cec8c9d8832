#!/usr/bin/env bash
# HAS and its baselines trained with off-topic negatives (issue 13): WikiQA
# train's answered questions padded to 30 candidates with sentences of other
# train questions (as2 data augment), the epoch kept on WikiQA dev padded to
# 100 the same way; each model, seed 1, evaluated on WikiQA test (answered,
# its own candidates) and on the 500-candidate WikiQA++ test of
# scripts/has-bench.sh. Pooling, float attention and HAS (β 10, δ 0, chosen
# on dev) over the same BiLSTM on GloVe, triplet hinge.
#
#   scripts/has-augmented.sh [out-dir]     (default out/has; about 10 minutes a model on 2 cores)
#
# Prints, per model, MAP, MRR and P@1 on the two test sets.
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
out=${1:-out/has}
mkdir -p "$out"
aug() { # aug SPLIT SIZE FILE writes FILE once
  [ -s "$3" ] || "$as2" data augment --dataset wikiqa --split "$1" --subset answered --size "$2" --seed 1 --out "$3" >&2
}
aug train 30 "$out/wikiqa-train30.jsonl"
aug dev 100 "$out/wikiqa-dev100.jsonl"
aug test 500 "$out/wikiqa-test500.jsonl"
cell() { # cell EVAL-FLAGS... prints "MAP / MRR / P@1"
  "$as2" eval --subset answered --metrics map,mrr,p@1 --format json "$@" |
    python3 -c 'import json,sys; m=json.load(sys.stdin)["metrics"]; print("%.2f / %.2f / %.2f" % (100*m["map"], 100*m["mrr"], 100*m["p@1"]))'
}
echo "| model (trained with off-topic negatives) | WikiQA test: MAP / MRR / P@1 | WikiQA++ test, 500 candidates |"
echo "|---|---|---|"
for v in "pooling" "attention" "hash --beta 10 --delta 0"; do
  read -r mode flags <<<"$v"
  m="$out/aug-$mode.as2"
  # shellcheck disable=SC2086
  [ -f "$m" ] || "$as2" train --arch has --objective triplet --has-mode "$mode" $flags --dataset jsonl \
    --path "$out/wikiqa-train30.jsonl" --dev-path "$out/wikiqa-dev100.jsonl" --seed 1 --quiet --out "$m" >&2
  echo "| $mode | $(cell --model "$m" --dataset wikiqa --split test) | $(cell --model "$m" --dataset jsonl --path "$out/wikiqa-test500.jsonl") |"
done
