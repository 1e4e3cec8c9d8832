#!/usr/bin/env bash
# Reproduces the Cosinet rows of the README (the Cosinet paper's Table 4):
# every variant trained with seeds 1..N on a dataset's train split, tuned
# settings chosen on dev beforehand, evaluated once on test; prints a
# Markdown table of mean ± std (sample) of MAP and MRR, the parameter count
# and the mean training wall time.
#
#   scripts/cosinet-table.sh [dataset] [seeds] [extra as2 train flags...]
#   scripts/cosinet-table.sh wikiqa 5
#   scripts/cosinet-table.sh trecqa 5
#   ONLY='BiRNN' scripts/cosinet-table.sh wikiqa 5 --paper   # rows matching a regex
set -euo pipefail
dataset=${1:-wikiqa}
seeds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
extra=("$@")
as2=${AS2:-./as2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

variants=(
  "Cosinet|--rnn none"
  "Cosinet_list|--listwise --rnn none"
  "Cosinet_list + RNN|--listwise --rnn rnn"
  "Cosinet_list + BiRNN|--listwise --rnn birnn"
  "Cosinet_list + LSTM|--listwise --rnn lstm"
  "Cosinet_list + BiLSTM|--listwise --rnn bilstm"
)

if [ -z "${NOHEADER:-}" ]; then
  echo "| model | MAP | MRR | params | train time (s) |"
  echo "|---|---|---|---|---|"
fi
for v in "${variants[@]}"; do
  name=${v%%|*}
  flags=${v#*|}
  if [ -n "${ONLY:-}" ] && ! grep -qE "${ONLY}" <<<"$name"; then
    continue
  fi
  maps=() mrrs=() secs=() params=0
  for seed in $(seq 1 "$seeds"); do
    m="$work/m.as2"
    # shellcheck disable=SC2086
    if ! line=$("$as2" train --model cosinet --dataset "$dataset" $flags --seed "$seed" --dev-split none --quiet "${extra[@]}" --out "$m" 2>"$work/log"); then
      cat "$work/log" >&2
      exit 1
    fi
    params=$(sed -E 's/.*: ([0-9]+) parameters.*/\1/' <<<"$line")
    secs+=("$(sed -E 's/.* pairs in ([0-9.]+)s.*/\1/' <<<"$line")")
    json=$("$as2" eval --model "$m" --dataset "$dataset" --split test --subset answered --metrics map,mrr --format json)
    maps+=("$(sed -E 's/.*"map":([0-9.]+).*/\1/' <<<"$json")")
    mrrs+=("$(sed -E 's/.*"mrr":([0-9.]+).*/\1/' <<<"$json")")
  done
  stat() { printf '%s\n' "$@" | awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=(n>1)?(q-n*m*m)/(n-1):0; if (v<0) v=0; printf "%.2f ± %.2f", 100*m, 100*sqrt(v)}'; }
  mean() { printf '%s\n' "$@" | awk '{s+=$1; n++} END {printf "%.1f", s/n}'; }
  echo "| $name | $(stat "${maps[@]}") | $(stat "${mrrs[@]}") | $params | $(mean "${secs[@]}") |"
done
