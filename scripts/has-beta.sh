#!/usr/bin/env bash
# HAS's β sensitivity on WikiQA dev (the HAS paper's Figure 3a): one model
# per β in tanh(βV), seed 1, δ at its default; prints each run's kept epoch
# and its dev MAP (answered questions).
#
#   scripts/has-beta.sh [betas...]      (default: 1 2 5 10 20, the paper's grid)
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
betas=("$@")
[ ${#betas[@]} -eq 0 ] && betas=(1 2 5 10 20)
m=$(mktemp --suffix .as2)
trap 'rm -f "$m"' EXIT
echo "| β | kept epoch | WikiQA dev MAP |"
echo "|---|---|---|"
for b in "${betas[@]}"; do
  line=$("$as2" train --arch has --objective triplet --dataset wikiqa --seed 1 --beta "$b" --quiet --out "$m")
  sed -E "s/.*kept epoch ([0-9]+) \(dev MAP ([0-9.]+)\).*/| $b | \1 | \2 |/" <<<"$line"
done
