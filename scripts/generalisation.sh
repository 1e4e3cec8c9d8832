#!/usr/bin/env bash
# Generalisation beyond the training benchmark: every ranker is evaluated on
# the test questions of WikiQA (answered subset), TrecQA (clean test) and
# SQuAD-sent's article-disjoint test half, next to BM25 and WO+RR on the
# same questions. A trained model's own benchmark is marked "(in-domain)";
# the other columns are data it never saw.
#
#   scripts/generalisation.sh "NAME|MODEL FILE|TRAINED ON|EVAL FLAGS" ...
#   scripts/generalisation.sh \
#     "Cross-encoder_list, WikiQA|out/models/wikiqa/Cross-encoder_list-USE-Lite-1.as2|wikiqa|" \
#     "Cross-encoder_list, TrecQA|out/models/trecqa/Cross-encoder_list-USE-Lite-1.as2|trecqa|--normalize-numbers"
#
# TRAINED ON is a dataset or a comma-separated list (wikiqa,trecqa,squad)
# of those the model trained on. EVAL FLAGS are dataset flags for every test set (a model trained with
# --normalize-numbers reads numbers as it was trained to). Prints a
# Markdown table of MAP / MRR (percent). Environment: AS2 (default ./as2).
set -euo pipefail
shopt -s inherit_errexit # a failed evaluation stops the table, never prints 0
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
tests=("wikiqa --split test" "trecqa --split test" "squad --split test")
names=(WikiQA TrecQA "SQuAD-sent test half")

# cell DATASET-AND-SPLIT FLAGS... prints "MAP / MRR" of one evaluation.
cell() {
  local t=$1 json map mrr
  shift
  # shellcheck disable=SC2086
  json=$("$as2" eval --dataset $t --subset answered --metrics map,mrr --format json "$@")
  map=$(sed -E 's/.*"map":([0-9.]+).*/\1/' <<<"$json")
  mrr=$(sed -E 's/.*"mrr":([0-9.]+).*/\1/' <<<"$json")
  awk -v a="$map" -v b="$mrr" 'BEGIN {printf "%.2f / %.2f", 100*a, 100*b}'
}

printf '| ranker (trained on) |'
printf ' %s |' "${names[@]}"
printf '\n|---|---|---|---|\n'
for r in bm25 wo+rr; do
  printf '| %s (no training) |' "$r"
  for t in "${tests[@]}"; do
    printf ' %s |' "$(cell "$t" --ranker "$r")"
  done
  printf '\n'
done
for spec in "$@"; do
  IFS='|' read -r name model trained flags <<<"$spec"
  read -r -a fl <<<"$flags"
  printf '| %s |' "$name"
  for t in "${tests[@]}"; do
    c=$(cell "$t" --model "$model" "${fl[@]}")
    if [[ ",$trained," == *",${t%% *},"* ]]; then
      c="$c (in-domain)"
    fi
    printf ' %s |' "$c"
  done
  printf '\n'
done
