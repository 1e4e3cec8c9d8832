#!/usr/bin/env bash
# HAS's sensitivity to β and δ on WikiQA dev (the HAS paper's Figure 3):
# one model per value, seed $SEED (default 1), the other parameter at the
# paper's setting of the study (δ 1e-6 for β, β 5 for δ); prints each run's
# kept epoch and its dev MAP (answered questions). DATASET=trecqa sweeps on
# TrecQA's clean dev instead, with regression/specs/has-trecqa.yaml's training data for the
# encoder; ENCODER=use-lite puts the paper's setting under the hashing layer
# (scripts/has-encoders.sh).
#
#   scripts/has-sweep.sh beta [values...]    (default: 1 2 5 10 20, the paper's grid)
#   scripts/has-sweep.sh delta [values...]   (default: 0 1e-7 1e-6 1e-5 1e-4)
#   scripts/has-sweep.sh ste [values...]     β of the straight-through hashing
#                                            layer (--hash-train ste, δ 0; default: 2 5 10)
#   scripts/has-sweep.sh tanh [values...]    β of the paper's layer with δ 0 (default: 10)
#   MODE=hash|attention|pooling scripts/has-sweep.sh hidden [values...]
#                                            the BiLSTM's size per direction,
#                                            β 10 and δ 0 (default: 128 256)
#   ENCODER=use-lite DATASET=trecqa scripts/has-sweep.sh tanh 1 2 5 10 20
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
param=${1:?usage: has-sweep.sh beta|delta [values...]}
shift
values=("$@")
case $param in
beta) [ ${#values[@]} -eq 0 ] && values=(1 2 5 10 20); fixed=(--delta 1e-6) ;;
delta) [ ${#values[@]} -eq 0 ] && values=(0 1e-7 1e-6 1e-5 1e-4); fixed=(--beta 5) ;;
ste) [ ${#values[@]} -eq 0 ] && values=(2 5 10); fixed=(--hash-train ste --delta 0) ;;
tanh) [ ${#values[@]} -eq 0 ] && values=(10); fixed=(--delta 0) ;;
hidden) [ ${#values[@]} -eq 0 ] && values=(128 256); fixed=(--beta 10 --delta 0 --has-mode "${MODE:-hash}") ;;
*) echo "has-sweep.sh: sweep beta, delta, ste, tanh or hidden, not $param" >&2; exit 2 ;;
esac
flag=$param
case $param in ste | tanh) flag=beta ;; esac
dataset=${DATASET:-wikiqa}
# shellcheck source=scripts/has-encoders.sh
source "$(dirname "$0")/has-encoders.sh"
read -r -a encoder_flags <<<"$has_encoder_flags"
has_training_data "$dataset"
read -r -a data <<<"$has_data_flags $has_train_flags"
label=$(case $dataset in wikiqa) echo WikiQA dev ;; trecqa) echo TrecQA clean dev ;; *) echo "$dataset dev" ;; esac)
m=$(mktemp --suffix .as2)
trap 'rm -f "$m"' EXIT
echo "| $param | kept epoch | $label MAP |"
echo "|---|---|---|"
for v in "${values[@]}"; do
  line=$("$as2" train --arch has --objective triplet --dataset "$dataset" "${data[@]}" "${encoder_flags[@]}" --seed "${SEED:-1}" "${fixed[@]}" "--$flag" "$v" --quiet --out "$m")
  sed -E "s/.*kept epoch ([0-9]+) \(dev MAP ([0-9.]+)\).*/| $v | \1 | \2 |/" <<<"$line"
done
