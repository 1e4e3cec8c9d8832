#!/usr/bin/env bash
# The ReQA SQuAD tables of the README (issue 12): dual encoders and ENDX,
# trained with the in-batch softmax, seeds 1..N, each model evaluated once
# by retrieval over a ReQA pool (as2 retrieve eval: MRR, R@1, R@5, R@10).
#
#   scripts/reqa-table.sh CONDITION [seeds] [extra as2 train flags...]
#   scripts/reqa-table.sh test-half 3      # trained with SQuAD's train half; the test half's pool
#   ONLY='LSTM' scripts/reqa-table.sh full 3   # trained without SQuAD; the full pool
#   ONLY='^ENDX-LSTM, --gam-' scripts/reqa-table.sh test-half 1   # the GAM ablation (Table 5) at the paper's kernel, one seed
#   RUNS=results/reqa-test-half-10-epochs.tsv EPOCHS=10 ONLY='temperature 50, --gam-' scripts/reqa-table.sh test-half 3   # the same at T 50, 10 epochs
#   EPOCHS=10 ONLY='^(Dual-LSTM|ENDX-LSTM, GAM temperature 50$)' scripts/reqa-table.sh test-half-dev 3
#
# Conditions (the issue's two, and the paper's protocol for the first):
#   test-half      train on WikiQA train, TrecQA TRAIN-ALL and SQuAD v1.1
#                  dev's article-disjoint train half; test on the test
#                  half's pool (its questions and articles are never
#                  trained on)
#   full           train on WikiQA train and TrecQA TRAIN-ALL only; test on
#                  the whole ReQA SQuAD pool
#   test-half-dev  test-half with a validation pool, as the ENDX paper
#                  trains (section 4.4: "the parameters that perform best on
#                  validation set are used on test set"): 2 of the train
#                  half's 25 articles are held out (scripts/reqa-fit-dev.py,
#                  DEV_ARTICLES=2 SEED=1), their ReQA pool is the dev pool,
#                  and each run keeps the epoch with the best dev MRR
# Rows of test-half and full train a fixed number of epochs (EPOCHS,
# default 5; the fine-tuned USE-Lite rows name their own, 2 or 8, after their
# flags): those conditions have no ReQA dev pool apart from the test
# questions, so no epoch is chosen on them.
#
# Runs are logged in results/reqa-<condition>.tsv ("row<TAB>seed<TAB>MRR<TAB>
# R@1<TAB>R@5<TAB>R@10<TAB>train seconds"): a stopped table resumes where it
# stopped, and REPORT=1 prints it without training. AS2 is the binary
# (default ./as2); ONLY a regex of the rows to run; FROM the first seed to
# run (default 1), so that two tables run different seeds side by side;
# LOGS a folder to keep each run's training log in (its dev MRR per epoch);
# MODELS a folder to keep each trained model in (for hybrid retrieval or
# reranking after the table; otherwise they are deleted).
# TEACHER is the ranker the distilled row learns from (--distill): one
# trained without the condition's test questions, such as the built-in
# recipe's no-SQuAD blend for full (results/reqa-distill.md); without it
# that row is skipped, with a message.
set -euo pipefail
cond=${1:?usage: scripts/reqa-table.sh test-half|full|test-half-dev [seeds] [as2 train flags...]}
seeds=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
extra=("$@")
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
epochs=${EPOCHS:-5}
runs=${RUNS:-results/reqa-$cond.tsv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
touch "$runs"
# prepare writes the condition's data and test pool into $work. run calls
# it before the first training run, so that REPORT=1 prepares nothing.
case $cond in
test-half)
  data=(--dataset wikiqa --also trecqa:train-all --also squad:train)
  prepare() { "$as2" data reqa --half test --out "$work/pool.jsonl" 2>/dev/null; }
  ;;
full)
  data=(--dataset wikiqa --also trecqa:train-all)
  prepare() { "$as2" data reqa --out "$work/pool.jsonl" 2>/dev/null; }
  ;;
test-half-dev)
  data=(--dataset jsonl --path "$work/train.jsonl" --also trecqa:train-all --dev-pool "$work/split/pool-dev.jsonl" --keep-best)
  prepare() {
    "$as2" data reqa --half train --out "$work/reqa-train-half.jsonl" 2>/dev/null
    "$as2" data augment --dataset squad --split train --size 1 --out "$work/squad-train.jsonl" 2>/dev/null
    "$as2" data augment --dataset wikiqa --split train --subset answered --size 1 --out "$work/wikiqa-train.jsonl" 2>/dev/null
    DEV_ARTICLES=2 SEED=1 python3 "$(dirname "$0")/reqa-fit-dev.py" "$work/reqa-train-half.jsonl" "$work/squad-train.jsonl" "$work/split" >/dev/null
    cat "$work/wikiqa-train.jsonl" "$work/split/squad-fit.jsonl" >"$work/train.jsonl"
    "$as2" data reqa --half test --out "$work/pool.jsonl" 2>/dev/null
  }
  ;;
*)
  echo "reqa-table.sh: condition $cond: want test-half, full or test-half-dev" >&2
  exit 2
  ;;
esac

# shellcheck source=scripts/table-lib.sh
source "$(dirname "$0")/table-lib.sh"

# slug NAME is a row's name as a file name.
slug() { tr -c 'A-Za-z0-9\n' _ <<<"$1"; }

run() {
  local name=$1 flags=$2 seed=$3 m="$work/m.as2" start secs json
  if [[ $flags == *@TEACHER@* ]]; then
    if [ -z "${TEACHER:-}" ]; then
      echo "reqa-table.sh: skipping \"$name\", seed $seed: it needs TEACHER, a ranker trained without the test questions: for full, out/default/no-squad-blend-E.json (scripts/default-model.sh no-squad, then TAG=-E scripts/default-heldout.sh dev); for test-half, builtin" >&2
      return 0
    fi
    flags=${flags//@TEACHER@/$TEACHER}
  fi
  if [ ! -f "$work/pool.jsonl" ]; then prepare; fi
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  if ! "$as2" train --arch dual --objective in-batch-softmax "${data[@]}" \
    --epochs "$epochs" --seed "$seed" --dev-split none --quiet $flags "${extra[@]}" --out "$m" >"$work/log" 2>&1; then
    cat "$work/log" >&2
    exit 1
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", e-s}')
  if [ -n "${LOGS:-}" ]; then
    mkdir -p "$LOGS"
    cp "$work/log" "$LOGS/$(slug "$name")-$seed.log"
  fi
  if [ -n "${MODELS:-}" ]; then
    mkdir -p "$MODELS"
    cp "$m" "$MODELS/$(slug "$name")-$seed.as2"
  fi
  json=$("$as2" retrieve eval --pool "$work/pool.jsonl" --retriever "$m" --format json 2>"$work/log") || { cat "$work/log" >&2; exit 1; }
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("\t".join([sys.argv[2], sys.argv[3], str(r["mrr"])] + [str(x) for x in r["r_at"][:3]] + [sys.argv[4]]))' \
    "$json" "$name" "$seed" "$secs" >>"$runs"
}

echo "| $cond: model | MRR | R@1 | R@5 | R@10 | train time (s, median) |"
echo "|---|---|---|---|---|---|"
# row LABEL LINE... prints a row of the table from its runs.
row() {
  local label=$1 out col
  shift
  out="| $label"
  for col in 3 4 5 6; do
    # shellcheck disable=SC2046
    out+=" | $(stat $(printf '%s\n' "$@" | cut -f$col))"
  done
  # shellcheck disable=SC2046
  echo "$out | $(median $(printf '%s\n' "$@" | cut -f7)) |"
}
cat >"$work/variants" <<'VARIANTS'
Dual-LSTM (BiLSTM over GloVe, multi-hop attention)|--layer bilstm
ENDX-LSTM|--layer bilstm --endx --gam-temperature 1
ENDX-LSTM, GAM temperature 50|--layer bilstm --endx --gam-temperature 50
ENDX-LSTM, GAM temperature 50, GAM's gradient stopped at the cross side|--layer bilstm --endx --gam-temperature 50 --gam-stop-grad
Dual-Transformer (2 layers over GloVe)|--layer transformer
ENDX-Transformer|--layer transformer --endx --gam-temperature 1
ENDX-Transformer, GAM temperatures 50 and 50|--layer transformer --endx --gam-temperature 50 --gam-dual-temperature 50
Dual-USE-Lite fine-tuned (its own head, 2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2
ENDX-USE-Lite fine-tuned (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --endx --cross-heads 8 --gam-ramp 0.5 --gam-temperature 1
ENDX-USE-Lite fine-tuned, GAM at T 50 (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --endx --cross-heads 8 --gam-ramp 0.5 --gam-temperature 50
ENDX-USE-Lite fine-tuned, warm-up, GAM at T 50, --alpha-ga 0.1 (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --endx --cross-heads 8 --gam-start 1 --gam-ramp 0.5 --gam-temperature 50 --alpha-ga 0.1
ENDX-USE-Lite fine-tuned, cross side scaled and at 250x the rate, warm-up (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --endx --cross-heads 8 --gam-start 1 --gam-ramp 0.5 --gam-temperature 1 --cross-scale 20 --cross-lr-scale 250
ENDX-USE-Lite fine-tuned, residual cross side (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --endx --cross-heads 8 --gam-ramp 0.5 --gam-temperature 1 --cross-scale 20 --cross-lr-scale 250 --cross-residual
Dual-USE-Lite fine-tuned (its own head, 8 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 8
ENDX-USE-Lite fine-tuned, residual cross side (8 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 8 --endx --cross-heads 8 --gam-ramp 0.5 --gam-temperature 1 --cross-scale 20 --cross-lr-scale 250 --cross-residual
Dual-USE-Lite fine-tuned, distilled from the built-in recipe's ranker (2 epochs)|--encoder use-lite --layer none --pool encoder --fine-tune --scale 20 --lr 2e-5 --epochs 2 --distill @TEACHER@ --distill-weight 1 --distill-temperature 2 --distill-candidates 8
ENDX-LSTM, --gam-aq 0|--layer bilstm --endx --gam-temperature 1 --gam-aq 0
ENDX-LSTM, --gam-qa 0|--layer bilstm --endx --gam-temperature 1 --gam-qa 0
ENDX-LSTM, --gam-qq 0|--layer bilstm --endx --gam-temperature 1 --gam-qq 0
ENDX-LSTM, --gam-aa 0|--layer bilstm --endx --gam-temperature 1 --gam-aa 0
ENDX-LSTM, GAM temperature 50, --gam-aq 0|--layer bilstm --endx --gam-temperature 50 --gam-aq 0
ENDX-LSTM, GAM temperature 50, --gam-qa 0|--layer bilstm --endx --gam-temperature 50 --gam-qa 0
ENDX-LSTM, GAM temperature 50, --gam-qq 0|--layer bilstm --endx --gam-temperature 50 --gam-qq 0
ENDX-LSTM, GAM temperature 50, --gam-aa 0|--layer bilstm --endx --gam-temperature 50 --gam-aa 0
ENDX-LSTM, GAM temperature 50, --gam-qa 0 --gam-aa 0|--layer bilstm --endx --gam-temperature 50 --gam-qa 0 --gam-aa 0
VARIANTS
each_row "$work/variants" "$seeds" "$runs" row
