#!/usr/bin/env bash
# The HAS paper's Table 6 setting on as2's data (issue 13): memory per answer
# and in all for a pool of every SQuAD v1.1 dev, WikiQA and TrecQA sentence,
# and time per question and accuracy at 500 candidates per question (WikiQA
# test, answered questions, augmented with other test sentences), for
# pooling, float attention (recompute and store) and HAS (recompute and
# store), on this machine's cores.
#
#   scripts/has-bench.sh [out-dir]     (default out/has)
#
# It trains the three seed-1 models of scripts/has-table.sh's WikiQA rows
# into the folder (HAS with β 10, chosen on dev) unless they are there, and
# writes the 500-candidate file beside them. Run it on a quiet machine.
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
out=${1:-out/has}
mkdir -p "$out"
for v in "hash --beta 10" attention pooling; do
  read -r mode flags <<<"$v"
  if [ ! -f "$out/wiki-$mode.as2" ]; then
    # shellcheck disable=SC2086
    "$as2" train --arch has --objective triplet --has-mode "$mode" $flags --dataset wikiqa --seed 1 --quiet --out "$out/wiki-$mode.as2"
  fi
done
if [ ! -f "$out/wikiqa-test500.jsonl" ]; then
  "$as2" data augment --dataset wikiqa --split test --size 500 --out "$out/wikiqa-test500.jsonl"
fi
"$as2" bench has --hash "$out/wiki-hash.as2" --attention "$out/wiki-attention.as2" --pooling "$out/wiki-pooling.as2" \
  --dataset jsonl --path "$out/wikiqa-test500.jsonl"
