#!/usr/bin/env bash
# The ReQA SQuAD tables of the README (issue 12): dual encoders and ENDX,
# trained with the in-batch softmax, seeds 1..N, each model evaluated once
# by retrieval over a ReQA pool (as2 retrieve eval: MRR, R@1, R@5, R@10).
#
#   scripts/reqa-table.sh CONDITION [seeds] [extra as2 train flags...]
#   scripts/reqa-table.sh test-half 3      # trained with SQuAD's train half; the test half's pool
#   ONLY='LSTM' scripts/reqa-table.sh full 3   # trained without SQuAD; the full pool
#
# Conditions (the issue's two):
#   test-half  train on WikiQA train, TrecQA TRAIN-ALL and SQuAD v1.1 dev's
#              article-disjoint train half; test on the test half's pool
#              (its questions and articles are never trained on)
#   full       train on WikiQA train and TrecQA TRAIN-ALL only; test on the
#              whole ReQA SQuAD pool
# Every row trains a fixed number of epochs (EPOCHS, default 5): there is no
# ReQA dev pool apart from the test questions, so no epoch is chosen on them.
#
# Runs are logged in results/reqa-<condition>.tsv ("row<TAB>seed<TAB>MRR<TAB>
# R@1<TAB>R@5<TAB>R@10<TAB>train seconds"): a stopped table resumes where it
# stopped, and REPORT=1 prints it without training. AS2 is the binary
# (default ./as2); ONLY a regex of the rows to run.
set -euo pipefail
cond=${1:?usage: scripts/reqa-table.sh test-half|full [seeds] [as2 train flags...]}
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
case $cond in
test-half)
  also=(--also trecqa:train-all --also squad:train)
  "$as2" data reqa --half test --out "$work/pool.jsonl" 2>/dev/null
  ;;
full)
  also=(--also trecqa:train-all)
  "$as2" data reqa --out "$work/pool.jsonl" 2>/dev/null
  ;;
*)
  echo "reqa-table.sh: condition $cond: want test-half or full" >&2
  exit 2
  ;;
esac

stat() { printf '%s\n' "$@" | awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=(n>1)?(q-n*m*m)/(n-1):0; if (v<0) v=0; printf "%.2f ± %.2f", 100*m, 100*sqrt(v)}'; }

run() {
  local name=$1 flags=$2 seed=$3 m="$work/m.as2" start secs json
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  if ! "$as2" train --arch dual --objective in-batch-softmax --dataset wikiqa "${also[@]}" $flags \
    --epochs "$epochs" --seed "$seed" --dev-split none --quiet "${extra[@]}" --out "$m" >"$work/log" 2>&1; then
    cat "$work/log" >&2
    exit 1
  fi
  secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.0f", e-s}')
  json=$("$as2" retrieve eval --pool "$work/pool.jsonl" --retriever "$m" --format json 2>"$work/log") || { cat "$work/log" >&2; exit 1; }
  python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("\t".join([sys.argv[2], sys.argv[3], str(r["mrr"])] + [str(x) for x in r["r_at"][:3]] + [sys.argv[4]]))' \
    "$json" "$name" "$seed" "$secs" >>"$runs"
}

echo "| $cond: model | MRR | R@1 | R@5 | R@10 | train time (s, median) |"
echo "|---|---|---|---|---|---|"
while IFS= read -r v; do
  [ -z "$v" ] && continue
  name=${v%%|*}
  flags=${v#*|}
  if [ -n "${ONLY:-}" ] && ! grep -qE "${ONLY}" <<<"$name"; then
    continue
  fi
  cols=() n=0
  for seed in $(seq 1 "$seeds"); do
    found=$(awk -F'\t' -v n="$name" -v s="$seed" '$1 == n && $2 == s' "$runs" | tail -n 1)
    if [ -z "$found" ] && [ -z "${REPORT:-}" ]; then
      run "$name" "$flags" "$seed" </dev/null
      found=$(tail -n 1 "$runs")
    fi
    [ -n "$found" ] && n=$((n + 1))
  done
  [ "$n" -eq 0 ] && continue
  row="| $name"
  if [ "$n" -eq 1 ] && [ "$seeds" -gt 1 ]; then
    row+=" (1 seed)"
  elif [ "$n" -lt "$seeds" ]; then
    row+=" ($n seeds)"
  fi
  for col in 3 4 5 6; do
    row+=" | $(stat $(awk -F'\t' -v n="$name" -v c=$col -v k="$seeds" '$1 == n && $2 <= k {print $c}' "$runs"))"
  done
  row+=" | $(awk -F'\t' -v n="$name" -v k="$seeds" '$1 == n && $2 <= k {print $7}' "$runs" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}') |"
  echo "$row"
done <<'VARIANTS'
Dual-LSTM (BiLSTM over GloVe, multi-hop attention)|--layer bilstm
ENDX-LSTM|--layer bilstm --endx
Dual-Transformer (2 layers over GloVe)|--layer transformer
ENDX-Transformer|--layer transformer --endx
VARIANTS
