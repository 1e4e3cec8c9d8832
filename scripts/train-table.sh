#!/usr/bin/env bash
# Trains every variant of a table with seeds 1..N on a dataset's train split
# (settings chosen on dev beforehand), evaluates each model once on test
# (answered subset), and prints a Markdown table of mean ± std (sample) of
# MAP and MRR, the parameter count and the median training wall time (the
# median, as a run slowed by other work on the machine should not count).
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
#   RUNS       a file of finished runs, one "row<TAB>seed<TAB>MAP<TAB>MRR<TAB>
#              params<TAB>seconds" line each: runs found there are not redone
#              and each new run is appended as it finishes, so a long table
#              can be stopped and resumed. Use one file per dataset and flags.
#   REPORT     set: train nothing, print the table from the runs in RUNS
#              (a row with fewer than the asked seeds says how many it has)
#   MODELS     a folder: keep each trained model there, as "ROW-SEED.as2"
#              with the row name's non-alphanumerics as "-" (for later
#              studies, e.g. scripts/generalisation.sh)
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
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
runs=${RUNS:-$work/runs.tsv}
touch "$runs"

# shellcheck source=scripts/table-lib.sh
source "$(dirname "$0")/table-lib.sh"

# run NAME FLAGS SEED trains and evaluates one model and appends its line to $runs.
run() {
  local name=$1 flags=$2 seed=$3 m="$work/m.as2" line params secs json map mrr
  # shellcheck disable=SC2086
  if ! line=$("$as2" train --dataset "$dataset" "${data_flags[@]}" ${flags//\{seed\}/$seed} --seed "$seed" "${dev[@]}" --quiet "${extra[@]}" --out "$m" 2>"$work/log"); then
    cat "$work/log" >&2
    exit 1
  fi
  params=$(sed -E 's/.*: ([0-9]+) parameters.*/\1/' <<<"$line")
  secs=$(sed -E 's/.* pairs in ([0-9.]+)s.*/\1/' <<<"$line")
  json=$("$as2" eval --model "$m" --dataset "$dataset" "${data_flags[@]}" --split test --subset answered --metrics map,mrr --format json)
  map=$(sed -E 's/.*"map":([0-9.]+).*/\1/' <<<"$json")
  mrr=$(sed -E 's/.*"mrr":([0-9.]+).*/\1/' <<<"$json")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$seed" "$map" "$mrr" "$params" "$secs" >>"$runs"
  if [ -n "${MODELS:-}" ]; then
    mkdir -p "$MODELS"
    cp "$m" "$MODELS/$(tr -cs 'A-Za-z0-9' '-' <<<"$name" | sed 's/-*$//')-$seed.as2"
  fi
}

if [ -z "${NOHEADER:-}" ]; then
  echo "| model | MAP | MRR | params | train time (s) |"
  echo "|---|---|---|---|---|"
fi
# row LABEL LINE... prints a row of the table from its runs.
row() {
  local label=$1 line map mrr params sec
  shift
  local -a maps=() mrrs=() secs=()
  for line in "$@"; do
    IFS=$'\t' read -r _ _ map mrr params sec <<<"$line"
    maps+=("$map") mrrs+=("$mrr") secs+=("$sec")
  done
  echo "| $label | $(stat "${maps[@]}") | $(stat "${mrrs[@]}") | $params | $(median "${secs[@]}") |"
}
each_row "$variants_file" "$seeds" "$runs" row
