#!/usr/bin/env bash
# Trains the built-in default model (issue 14) and the variants of the
# cross-dataset protocol: two USE-Lite models, each listwise on a mixture of
# every training set as2 has, seed 1: a cross-encoder (VARIANT.as2) and a
# dual encoder (VARIANT-dual.as2; results/default-listwise-dual.md).
#
#   scripts/default-model.sh [VARIANT...]     (default: all no-wikiqa no-trecqa no-squad)
#
#   all        WikiQA train + TrecQA TRAIN + SQuAD-sent train half (the shipped model)
#   all-sqdev  the same with 2 of the train half's 25 articles held back as a
#              SQuAD-sent dev set (scripts/reqa-fit-dev.py, DEV_ARTICLES=2,
#              seed 1: 411 questions), so that the epoch and the blend are
#              chosen on a dev set of each of the three datasets
#   no-wikiqa  without WikiQA: tested on WikiQA test
#   no-trecqa  without TrecQA: tested on TrecQA clean test
#   no-squad   without SQuAD: tested on the SQuAD-sent test half
#   ship       quantise all.as2 and all-dual.as2 into the built-in models
#              (as2 quantize): model/builtin/default.as2 and dual.as2; then
#              blend as below
#   blend      give the two built-in models an equal say (scripts/equal-say.py
#              on all's dev sets), blend that listwise with $LEXICAL's
#              rule-based rankers on the same dev sets (as2 tune blend) and
#              calibrate the blend on WikiQA dev, all questions (as2
#              trigger): model/builtin/blend.json and calibration.json.
#              scripts/default-heldout.sh is the cross-dataset check that
#              chose the blend's form.
#
# Each variant picks its epoch on the dev sets of the datasets it trains on
# (WikiQA dev answered, TrecQA clean dev), never on the held-out one's. The
# mixture (in $OUT, default out/default) is written with as2 data augment:
# WikiQA train questions get negatives drawn from other WikiQA questions up
# to 12 candidates (the sequential reranking paper's ASNQ++ idea, here small:
# the cross-encoder trains at ~70 pairs/s on 2 cores). TrecQA trains on
# TRAIN, not TRAIN-ALL: TRAIN-ALL replaces every number by "<num>" (30,624
# times), which no user's text does, and numbers are what "when" and "how
# many" questions look for. Models go to $OUT/VARIANT.as2 and
# $OUT/VARIANT-dual.as2. TRAIN_FLAGS adds as2 train flags to both (the
# exact-match study of docs/builtin-model.md, on the cross-encoder alone
# before the dual encoder joined: TRAIN_FLAGS=--exact-match OUT=out/xm).
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=$(realpath "${AS2:-./as2}")
out=${OUT:-out/default}
mkdir -p "$out"
variants=("$@")
# The blend's rule-based rankers ($LEXICAL) and tune blend flags ($BLEND_FLAGS)
# for ship and blend.
# shellcheck source=scripts/default-lib.sh
source "$(dirname "$0")/default-lib.sh"
[ ${#variants[@]} -eq 0 ] && variants=(all no-wikiqa no-trecqa no-squad)

data() { # data NAME ARGS... writes $out/NAME.jsonl once
  local f="$out/$1.jsonl"
  shift
  [ -s "$f" ] || "$as2" data augment "$@" --out "$f" >&2
}
data wikiqa-train --dataset wikiqa --split train --subset answered --size 12 --seed 1
data wikiqa-dev --dataset wikiqa --split dev --subset answered --size 1
data trecqa-train --dataset trecqa --split train --size 1
data trecqa-dev --dataset trecqa --split dev --size 1
data squad-train --dataset squad --split train --size 1
if [[ " ${variants[*]} " == *" all-sqdev "* && ! -s "$out/squad-fit.jsonl" ]]; then # its SQuAD train and dev articles
  [ -s "$out/reqa-train-half.jsonl" ] || "$as2" data reqa --half train --out "$out/reqa-train-half.jsonl" >&2
  DEV_ARTICLES=2 SEED=1 python3 "$(dirname "$0")/reqa-fit-dev.py" "$out/reqa-train-half.jsonl" \
    "$out/squad-train.jsonl" "$out" >&2 # squad-fit.jsonl, squad-dev.jsonl (and pool-dev.jsonl, unused)
fi

train_once() { # train_once MODEL FLAGS... trains variant $v's MODEL unless it exists
  local m=$1
  shift
  if [ -f "$m" ]; then
    echo "$m exists" >&2
    return
  fi
  echo "training $m..." >&2
  # shellcheck disable=SC2086 # $TRAIN_FLAGS: flags, split on spaces
  "$as2" train "$@" --listwise --dataset jsonl --path "$out/$v-train.jsonl" \
    --dev-path "$out/$v-dev.jsonl" --keep-best --seed 1 --quiet ${TRAIN_FLAGS:-} --out "$m"
}

for v in "${variants[@]}"; do
  case $v in
  all) train=(wikiqa-train trecqa-train squad-train) dev=(wikiqa-dev trecqa-dev) ;;
  all-sqdev) train=(wikiqa-train trecqa-train squad-fit) dev=(wikiqa-dev trecqa-dev squad-dev) ;;
  no-wikiqa) train=(trecqa-train squad-train) dev=(trecqa-dev) ;;
  no-trecqa) train=(wikiqa-train squad-train) dev=(wikiqa-dev) ;;
  no-squad) train=(wikiqa-train trecqa-train) dev=(wikiqa-dev trecqa-dev) ;;
  ship | blend)
    b=model/builtin
    if [ "$v" = ship ]; then
      "$as2" quantize --model "$out/all.as2" --out "$b/default.as2"
      "$as2" quantize --model "$out/all-dual.as2" --out "$b/dual.as2"
    fi
    cat "$out/wikiqa-dev.jsonl" "$out/trecqa-dev.jsonl" >"$out/all-dev.jsonl"
    fit_blend "$out/all-dev.jsonl" "$out/all-pair.json" "$b/blend.json" "$b/default.as2" "$b/dual.as2"
    "$as2" trigger --model "$b/blend.json" --dataset wikiqa --fit-split dev --split test --out "$b/calibration.json"
    continue
    ;;
  *) echo "unknown variant $v" >&2; exit 2 ;;
  esac
  printf '%s\n' "${train[@]/#/$out/}" | sed 's/$/.jsonl/' | xargs cat >"$out/$v-train.jsonl"
  printf '%s\n' "${dev[@]/#/$out/}" | sed 's/$/.jsonl/' | xargs cat >"$out/$v-dev.jsonl"
  train_once "$out/$v.as2" --arch crossencoder
  # The dual encoder takes the cross-encoder's recipe (2 epochs, 2e-4, 8
  # questions a step, clip 1, the best dev epoch) and --score-scale 20,
  # since its cosine scores are too flat for the listwise softmax.
  train_once "$out/$v-dual.as2" --arch dual --score-scale 20 --encoder use-lite --layer none \
    --pool encoder --fine-tune --lr 2e-4 --epochs 2 --batch 8 --clip 1
done
