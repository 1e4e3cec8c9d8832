#!/usr/bin/env bash
# Reproduces the transformer rows of the README (issue 11) with
# scripts/train-table.sh: the USE-Lite cross-encoder and Comp-Clip over
# USE-Lite's token states (the Comp-Clip paper's "+ LM" rows, with the
# pre-trained transformer we have in place of ELMo), seeds 1..N, early
# stopping on dev, each model evaluated once on test (answered subset).
#
#   scripts/transformer-table.sh [dataset] [seeds] [extra as2 train flags...]
#   scripts/transformer-table.sh wikiqa 5
#   ONLY='Cross' scripts/transformer-table.sh trecqa 5
#
# Runs are logged in results/transformer-<dataset>.tsv (see RUNS in
# train-table.sh): a stopped table resumes where it stopped, and REPORT=1
# prints it without training. The models are kept in out/models/<dataset>.
# USE-Lite is read from $AS2_MODELS/use-lite
# (default ../shared/models/use-lite).
#
# The TL row starts from Comp-Clip + LM + LC pre-trained pointwise on
# SQuAD-sent's article-disjoint train half (5,281 questions; the test half
# and WikiQA/TrecQA are never seen), built once with seed 1 and cached in
# $PRETRAINED (default ./pretrained).
set -euo pipefail
dataset=${1:-wikiqa}
seeds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
as2=${AS2:-./as2}
pre=${PRETRAINED:-./pretrained}
lck=6 # latent clustering's k: the paper's 6 for WikiQA, 4 for TrecQA
data=()
if [ "$dataset" = trecqa ]; then
  lck=4
  export DATA_FLAGS="--normalize-numbers"
  # Every row trains on the clean TRAIN set (94 questions, 4,718 pairs),
  # with each architecture's recipe: an epoch of TRAIN-ALL (53k pairs) is
  # 13 minutes for the cross-encoder at ~70 pairs/s on 2 cores, and
  # preparing its 55k sentences' USE-Lite states 7 minutes for Comp-Clip.
  data=(--train-split train)
fi
tl="$pre/squad-train-compclip-uselite-lc$lck.as2"
if [ ! -f "$tl" ] && [ -z "${REPORT:-}" ] && { [ -z "${ONLY:-}" ] || grep -qE "$ONLY" <<<"Comp-Clip + LM + LC + TL"; }; then
  mkdir -p "$pre"
  echo "pre-training $tl on SQuAD-sent's train half..." >&2
  "$as2" train --arch compclip --encoder use-lite --clusters 8 --cluster-k "$lck" --dataset squad --train-split train --dev-split none --epochs 2 --seed 1 --quiet --out "$tl" >&2
fi

export RUNS=${RUNS:-results/transformer-$dataset.tsv}
export MODELS=${MODELS:-out/models/$dataset} # kept for scripts/generalisation.sh
DEV=1 exec "$(dirname "$0")/train-table.sh" <(cat <<VARIANTS
Cross-encoder_list (USE-Lite)|--arch crossencoder --listwise ${data[*]}
Comp-Clip + LM (USE-Lite)|--arch compclip --encoder use-lite ${data[*]}
Comp-Clip + LM + LC|--arch compclip --encoder use-lite --clusters 8 --cluster-k $lck ${data[*]}
Comp-Clip + LM + LC + TL|--init $tl ${data[*]}
VARIANTS
) "$dataset" "$seeds" "$@"
