#!/usr/bin/env bash
# The cross-dataset protocol of the built-in model (issue 14), after
# scripts/default-model.sh has trained its variants: each model trained with
# one dataset held out is tested on that dataset alone, as each of its two
# models and as the shipped blend's form (default-lib.sh's fit_blend, on the
# dev sets of the datasets the variant trained on).
#
#   scripts/default-heldout.sh dev    choose: the held-out datasets' dev sets
#                                     (SQuAD: the first 1,000 questions of
#                                     the train half, which no-squad never saw)
#   scripts/default-heldout.sh test   report: their test sets
#
# Prints a Markdown table of MAP / MRR. Environment: AS2 (default ./as2),
# OUT (default out/default), LEXICAL (the blend's rule-based rankers,
# default those of the shipped blend, model/builtin/blend.json), BLEND_FLAGS
# (more as2 tune blend flags; default --non-negative, as the shipped blend
# was fitted; set it empty for none), TAG (the blend files' suffix: each
# variant's blend is $OUT/VARIANT-blendTAG.json) and EXTRA (more models of
# each variant at equal say with its two: suffixes S of $OUT/VARIANT-S.as2).
set -euo pipefail
shopt -s inherit_errexit
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
out=${OUT:-out/default}
stage=${1:-dev}
# shellcheck source=scripts/default-lib.sh
source "$(dirname "$0")/default-lib.sh" # lexical, blend_flags, fit_blend
tag=${TAG:-}

# blend VARIANT DEVFILE fits the variant's blend once: its cross-encoder,
# its dual encoder and, for each suffix S of $EXTRA, $out/VARIANT-S.as2 at
# equal say (form X's third model: EXTRA=cc).
blend() {
  local v=$1 dev=$2 e models
  models=("$out/$v.as2" "$out/$v-dual.as2")
  for e in ${EXTRA:-}; do
    models+=("$out/$v-$e.as2")
  done
  [ -s "$out/$v-blend$tag.json" ] || fit_blend "$dev" "$out/$v-pair$tag.json" "$out/$v-blend$tag.json" "${models[@]}"
}
blend no-wikiqa "$out/trecqa-dev.jsonl"
blend no-trecqa "$out/wikiqa-dev.jsonl"
blend no-squad "$out/no-squad-dev.jsonl"

# cell EVAL-FLAGS... prints "MAP / MRR" of one as2 eval.
cell() {
  local json
  json=$("$as2" eval --subset answered --metrics map,mrr --format json "$@")
  awk -v a="$(sed -E 's/.*"map":([0-9.]+).*/\1/' <<<"$json")" -v b="$(sed -E 's/.*"mrr":([0-9.]+).*/\1/' <<<"$json")" \
    'BEGIN {printf "%.2f / %.2f", 100*a, 100*b}'
}

if [ "$stage" = dev ]; then
  head -n 1000 "$out/squad-train.jsonl" >"$out/squad-train-1000.jsonl"
  sets=("no-wikiqa|WikiQA dev|--dataset jsonl --path $out/wikiqa-dev.jsonl"
    "no-trecqa|TrecQA clean dev|--dataset jsonl --path $out/trecqa-dev.jsonl"
    "no-squad|SQuAD-sent train half, first 1,000 questions|--dataset jsonl --path $out/squad-train-1000.jsonl")
else
  sets=("no-wikiqa|WikiQA test|--dataset wikiqa --split test"
    "no-trecqa|TrecQA clean test|--dataset trecqa --split test"
    "no-squad|SQuAD-sent test half|--dataset squad --split test")
fi
echo "| held out | trained on | cross-encoder | dual encoder | blend | bm25 | bm25-stem | wo+rr |"
echo "|---|---|---|---|---|---|---|---|"
for s in "${sets[@]}"; do
  IFS='|' read -r v name flags <<<"$s"
  read -r -a fl <<<"$flags"
  case $v in
  no-wikiqa) trained="TrecQA + SQuAD" ;;
  no-trecqa) trained="WikiQA + SQuAD" ;;
  no-squad) trained="WikiQA + TrecQA" ;;
  esac
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$trained" "$(cell --model "$out/$v.as2" "${fl[@]}")" \
    "$(cell --model "$out/$v-dual.as2" "${fl[@]}")" "$(cell --model "$out/$v-blend$tag.json" "${fl[@]}")" "$(cell --ranker bm25 "${fl[@]}")" \
    "$(cell --ranker bm25-stem "${fl[@]}")" "$(cell --ranker wo+rr "${fl[@]}")"
done
