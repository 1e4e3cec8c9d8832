#!/usr/bin/env bash
# Alternatives to the built-in ranker's blend on the cross-dataset protocol
# (issue 14; docs/builtin-model.md, "Other blend forms, held out"), after scripts/default-model.sh
# has trained the held-out variants and scripts/default-heldout.sh dev has
# written their dev sets: dumps every ranker's raw scores on the held-out dev
# and test sets once (as2 rank --raw-scores; most of the time goes to the
# cross-encoders on SQuAD-sent's 5,289 test questions), then fits and scores
# the blends (scripts/blend-study.py, pure Python, seconds) into
# results/default-blend-study.md.
#
# Environment: AS2 (default ./as2), OUT (default out/default), STUDY (the
# dumps, default out/blend-study).
set -euo pipefail
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=${AS2:-./as2}
out=${OUT:-out/default}
study=${STUDY:-out/blend-study}
mkdir -p "$study/scores"

set_file() { # set_file NAME AUGMENT-FLAGS... writes $study/NAME.jsonl once
  local f="$study/$1.jsonl"
  shift
  [ -s "$f" ] || "$as2" data augment --size 1 "$@" --out "$f" 2>/dev/null
}
set_file wikiqa-test --dataset wikiqa --split test --subset answered
set_file trecqa-test --dataset trecqa --split test
set_file squad-test --dataset squad --split test
for s in wikiqa-dev trecqa-dev squad-train-1000; do
  [ -s "$study/$s.jsonl" ] || cp "$out/$s.jsonl" "$study/$s.jsonl"
done

dump() { # dump NAME SET RANKER-FLAGS...
  local name=$1 set=$2 f
  shift 2
  f="$study/scores/$name.$set.json"
  [ -s "$f" ] && return
  "$as2" rank --input "$study/$set.jsonl" --raw-scores --format json "$@" >"$f.tmp"
  mv "$f.tmp" "$f"
}
for s in wikiqa-dev trecqa-dev squad-train-1000 wikiqa-test trecqa-test squad-test; do
  for r in wo idf-overlap bm25; do dump "$r" "$s" --ranker "$r"; done
done
# Each variant on its held-out sets and on the dev sets it trained on.
for v in no-wikiqa:wikiqa-dev,wikiqa-test,trecqa-dev \
  no-trecqa:trecqa-dev,trecqa-test,wikiqa-dev \
  no-squad:squad-train-1000,squad-test,wikiqa-dev,trecqa-dev; do
  IFS=, read -r -a sets <<<"${v#*:}"
  for s in "${sets[@]}"; do dump "${v%%:*}" "$s" --model "$out/${v%%:*}.as2"; done
done
SCORES="$study/scores" SETS="$study" python3 "$(dirname "$0")/blend-study.py" | tee results/default-blend-study.md
