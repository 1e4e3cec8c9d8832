#!/usr/bin/env bash
# The HAS paper's Table 6 setting on as2's data (issue 13): memory per answer
# and in all for a pool of every SQuAD v1.1 dev, WikiQA and TrecQA sentence,
# and time per question and accuracy at 500 candidates per question (WikiQA
# test, answered questions, augmented with other test sentences), for
# pooling, float attention (recompute and store) and HAS (recompute and
# store), on this machine's cores.
#
#   [ENCODER=use-lite] scripts/has-bench.sh [out-dir [as2 bench has flags...]]   (default out/has)
#   ENCODER=use-lite scripts/has-bench.sh out/has --questions 50 --pool none
#
# It trains the three seed-1 models of the WikiQA rows of regression/specs/has-wikiqa.yaml
# into the folder unless they are there (ENCODER as there: by default the
# BiLSTM over GloVe, HAS with β 10, chosen on dev; use-lite, the fine-tuned
# USE-Lite rows, HAS with β 10 and δ 0), and writes the 500-candidate file
# beside them. Flags after the folder go to as2 bench has: --questions N
# times the first N questions only (re-encoding 500 candidates through
# USE-Lite takes seconds a question), --pool none skips the memory figures
# (encoding the pool through USE-Lite takes about 14 minutes). Run it on a
# quiet machine.
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
# shellcheck source=scripts/has-encoders.sh
source "$(dirname "$0")/has-encoders.sh"
as2=${AS2:-./as2}
out=${1:-out/has}
shift $(( $# > 0 ? 1 : 0 ))
mkdir -p "$out"
prefix=wiki
hash_flags="--beta 10"
if [ "${ENCODER:-bilstm}" = use-lite ]; then
  prefix=wiki-use-lite
  hash_flags="--beta 10 --delta 0"
fi
for mode in hash attention pooling; do
  flags=$has_encoder_flags
  if [ "$mode" = hash ]; then
    flags+=" $hash_flags"
  fi
  if [ ! -f "$out/$prefix-$mode.as2" ]; then
    # shellcheck disable=SC2086
    "$as2" train --arch has --objective triplet --has-mode "$mode" $flags --dataset wikiqa --seed 1 --quiet --out "$out/$prefix-$mode.as2"
  fi
done
if [ ! -f "$out/wikiqa-test500.jsonl" ]; then
  "$as2" data augment --dataset wikiqa --split test --size 500 --out "$out/wikiqa-test500.jsonl"
fi
"$as2" bench has --hash "$out/$prefix-hash.as2" --attention "$out/$prefix-attention.as2" --pooling "$out/$prefix-pooling.as2" \
  --dataset jsonl --path "$out/wikiqa-test500.jsonl" "$@"
