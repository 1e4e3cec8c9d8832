#!/usr/bin/env bash
# Reproduces the HAS tables of the README (issue 13) with
# scripts/train-table.sh: pooling (a dual encoder: cosine of pooled
# vectors), attention over float answer states, and HAS (attention over
# hashed, binary answer states), all over the same encoder, trained with
# the paper's triplet hinge, seeds 1..N, the epoch kept on dev, each model
# evaluated once on test (answered subset).
#
#   [ENCODER=use-lite] scripts/has-table.sh [dataset] [seeds] [extra as2 train flags...]
#   scripts/has-table.sh wikiqa 5
#   ONLY='^(Pooling|Attention|HAS, binary answers, β 10)' scripts/has-table.sh trecqa 5
#   ENCODER=use-lite ONLY='^(Attention|HAS)' scripts/has-table.sh trecqa 3
#
# The encoder: by default a BiLSTM over GloVe; ENCODER=use-lite gives the
# paper's own setting (scripts/has-encoders.sh says what each means).
#
# Runs are logged in results/has-<dataset>.tsv: a stopped table resumes
# where it stopped, and REPORT=1 prints it without training.
set -euo pipefail
dataset=${1:-wikiqa}
seeds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
export RUNS=${RUNS:-results/has-$dataset.tsv}
# shellcheck source=scripts/has-encoders.sh
source "$(dirname "$0")/has-encoders.sh"
has_training_data "$dataset"
if [ -n "$has_data_flags" ]; then
  export DATA_FLAGS="$has_data_flags"
fi
read -r -a data <<<"$has_train_flags"
case ${ENCODER:-bilstm} in
bilstm)
  variants="Pooling (dual encoder)|--arch has --has-mode pooling --objective triplet
Attention, float answers|--arch has --has-mode attention --objective triplet
HAS, binary answers|--arch has --objective triplet
HAS, binary answers, β 10 (chosen on WikiQA dev)|--arch has --objective triplet --beta 10
HAS, binary answers, β 10 and δ 0 (chosen on WikiQA dev)|--arch has --objective triplet --beta 10 --delta 0"
  ;;
use-lite)
  variants="Pooling, USE-Lite fine-tuned|--arch has --has-mode pooling --objective triplet $has_encoder_flags
Attention, float answers, USE-Lite fine-tuned|--arch has --has-mode attention --objective triplet $has_encoder_flags
HAS, binary answers, β 10 and δ 0, USE-Lite fine-tuned|--arch has --objective triplet --beta 10 --delta 0 $has_encoder_flags
HAS, binary answers, β 1 and δ 0 (β chosen on TrecQA dev), USE-Lite fine-tuned|--arch has --objective triplet --beta 1 --delta 0 $has_encoder_flags
HAS, binary answers, β 2 and δ 0 (β chosen on WikiQA dev), USE-Lite fine-tuned|--arch has --objective triplet --beta 2 --delta 0 $has_encoder_flags"
  ;;
esac
DEV=1 exec "$(dirname "$0")/train-table.sh" <(printf '%s\n' "$variants") "$dataset" "$seeds" "${data[@]}" "$@"
