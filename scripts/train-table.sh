#!/usr/bin/env bash
# Trains every variant of a table with seeds 1..N on a dataset's train split
# (settings chosen on dev beforehand), evaluates each model once on test
# (answered subset), and prints a Markdown table of mean ± std (sample) of
# MAP and MRR, the parameter count and the mean training wall time.
#
#   scripts/train-table.sh VARIANTS dataset seeds [extra as2 train flags...]
#
# VARIANTS is a file of "row name|as2 train flags" lines. Environment:
#   AS2        the as2 binary (default ./as2)
#   ONLY       a regex: only rows whose name matches
#   NOHEADER   set: no table header
#   DATA_FLAGS dataset flags given to both train and eval (e.g. --normalize-numbers)
#   SEED_VAR   flags may contain {seed}, replaced by each run's seed
#   DEV        set: train with the dev split (for --keep-best); default none
set -euo pipefail
variants_file=$1
dataset=${2:-wikiqa}
seeds=${3:-5}
shift $(( $# > 3 ? 3 : $# ))
extra=("$@")
as2=${AS2:-./as2}
read -r -a data_flags <<<"${DATA_FLAGS:-}"
dev=(--dev-split none)
if [ -n "${DEV:-}" ]; then
  dev=()
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stat() { printf '%s\n' "$@" | awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=(n>1)?(q-n*m*m)/(n-1):0; if (v<0) v=0; printf "%.2f ± %.2f", 100*m, 100*sqrt(v)}'; }
mean() { printf '%s\n' "$@" | awk '{s+=$1; n++} END {printf "%.1f", s/n}'; }

if [ -z "${NOHEADER:-}" ]; then
  echo "| model | MAP | MRR | params | train time (s) |"
  echo "|---|---|---|---|---|"
fi
while IFS= read -r v; do
  [ -z "$v" ] && continue
  name=${v%%|*}
  flags=${v#*|}
  if [ -n "${ONLY:-}" ] && ! grep -qE "${ONLY}" <<<"$name"; then
    continue
  fi
  maps=() mrrs=() secs=() params=0
  for seed in $(seq 1 "$seeds"); do
    m="$work/m.as2"
    # shellcheck disable=SC2086
    if ! line=$("$as2" train --dataset "$dataset" "${data_flags[@]}" ${flags//\{seed\}/$seed} --seed "$seed" "${dev[@]}" --quiet "${extra[@]}" --out "$m" 2>"$work/log"); then
      cat "$work/log" >&2
      exit 1
    fi
    params=$(sed -E 's/.*: ([0-9]+) parameters.*/\1/' <<<"$line")
    secs+=("$(sed -E 's/.* pairs in ([0-9.]+)s.*/\1/' <<<"$line")")
    json=$("$as2" eval --model "$m" --dataset "$dataset" "${data_flags[@]}" --split test --subset answered --metrics map,mrr --format json)
    maps+=("$(sed -E 's/.*"map":([0-9.]+).*/\1/' <<<"$json")")
    mrrs+=("$(sed -E 's/.*"mrr":([0-9.]+).*/\1/' <<<"$json")")
  done
  echo "| $name | $(stat "${maps[@]}") | $(stat "${mrrs[@]}") | $params | $(mean "${secs[@]}") |"
done <"$variants_file"
