#!/usr/bin/env bash
# Cross-fitted weights for the built-in blend (results/default-crossfit.md):
# the weights are fitted on dev questions each scored by the held-out
# variant that never trained on their dataset (scripts/default-model.sh
# no-wikiqa no-trecqa no-squad), so that they trust the model as much as
# it deserves on text it did not learn. The model's scores reach as2 tune
# blend as TREC runs (as2 rank --format trec; --rankers FILE.run).
#
#   scripts/default-crossfit.sh heldout   for each held-out dataset X, fit on
#                                         the other two and write
#                                         $OUT/no-X-blend$TAG.json with
#                                         no-X.as2 as the model; then
#                                         TAG=$TAG scripts/default-heldout.sh
#                                         dev|test scores them
#
# The form lost by its rule (docs/builtin-model.md, "Cross-fitted weights"), so nothing
# here writes the built-in blend.
#
# Dev sets: WikiQA dev answered and TrecQA clean dev as default-model.sh
# writes them, and the first $SQUAD_QUESTIONS (default 126, WikiQA dev's
# size) questions of the SQuAD-sent train half. Environment: AS2, OUT
# (default out/default), TAG (default -G), LEXICAL and BLEND_FLAGS (as in
# default-model.sh).
set -euo pipefail
shopt -s inherit_errexit
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
as2=$(realpath "${AS2:-./as2}")
out=${OUT:-out/default}
tag=${TAG:--G}
stage=${1:?usage: scripts/default-crossfit.sh heldout}
# shellcheck source=scripts/default-lib.sh
source "$(dirname "$0")/default-lib.sh" # lexical, blend_flags
cf=$out/crossfit
mkdir -p "$cf"

# The cross-fitted dev sets: each dataset's questions and its held-out
# variant's run.
[ -s "$cf/squad.jsonl" ] || head -n "${SQUAD_QUESTIONS:-126}" "$out/squad-train.jsonl" >"$cf/squad.jsonl"
cp "$out/wikiqa-dev.jsonl" "$cf/wikiqa.jsonl"
cp "$out/trecqa-dev.jsonl" "$cf/trecqa.jsonl"
for d in wikiqa trecqa squad; do
  [ -s "$cf/$d.run" ] || "$as2" rank --model "$out/no-$d.as2" --input "$cf/$d.jsonl" --format trec --output "$cf/$d.run"
done

# fit NAME DATASET... fits the blend on those datasets' cross-fitted
# questions: $cf/NAME-fit.json, whose first ranker is their run.
fit() {
  local name=$1
  shift
  printf "$cf/%s.jsonl\n" "$@" | xargs cat >"$cf/$name.jsonl"
  printf "$cf/%s.run\n" "$@" | xargs cat >"$cf/$name.run"
  # shellcheck disable=SC2086 # $blend_flags: flags, split on spaces
  "$as2" tune blend --listwise $blend_flags --rankers "$cf/$name.run,$lexical" \
    --dataset jsonl --path "$cf/$name.jsonl" --out "$cf/$name-fit.json" >&2
}

# with_model FIT MODEL OUT writes the blend FIT with MODEL (a path relative
# to OUT's folder) in its run's place.
with_model() {
  python3 -c 'import json, sys
b = json.load(open(sys.argv[1])); b["rankers"][0] = sys.argv[2]
json.dump(b, open(sys.argv[3], "w"), indent=2); open(sys.argv[3], "a").write("\n")' "$1" "$2" "$3"
}

[ "$stage" = heldout ] || { echo "unknown stage $stage" >&2; exit 2; }
fit not-wikiqa trecqa squad && with_model "$cf/not-wikiqa-fit.json" no-wikiqa.as2 "$out/no-wikiqa-blend$tag.json"
fit not-trecqa wikiqa squad && with_model "$cf/not-trecqa-fit.json" no-trecqa.as2 "$out/no-trecqa-blend$tag.json"
fit not-squad wikiqa trecqa && with_model "$cf/not-squad-fit.json" no-squad.as2 "$out/no-squad-blend$tag.json"
