#!/usr/bin/env bash
# Reproduces the transformer rows of the README (issue 11) with
# scripts/train-table.sh: the USE-Lite cross-encoder, Comp-Clip over
# USE-Lite's token states (the Comp-Clip paper's "+ LM" rows, with the
# pre-trained transformer we have in place of ELMo) and the USE-Lite dual
# encoder of the built-in model (its recipe, on one benchmark), seeds 1..N, early
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
# The TL rows start from a model pre-trained on SQuAD-sent's
# article-disjoint train half (5,281 questions; the test half and
# WikiQA/TrecQA are never seen): Comp-Clip + LM + LC pointwise for 2
# epochs, the cross-encoder listwise for 1 (TANDA-style transfer, Garg et
# al. 2020), each built once with seed 1 and cached in $PRETRAINED
# (default ./pretrained).
set -euo pipefail
# The benchmarks: $AS2_DATA, else the project's shared data beside the checkout.
export AS2_DATA=${AS2_DATA:-$(cd "$(dirname "$0")/../.." && pwd)/shared/data}
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
# pretrain OUT ROW FLAGS... trains OUT on SQuAD-sent's train half (seed 1)
# unless it exists, and only when ROW is to run (never with REPORT).
pretrain() {
  local out=$1 row=$2
  shift 2
  if [ ! -f "$out" ] && [ -z "${REPORT:-}" ] && { [ -z "${ONLY:-}" ] || grep -qE "$ONLY" <<<"$row"; }; then
    mkdir -p "$pre"
    echo "pre-training $out on SQuAD-sent's train half..." >&2
    "$as2" train --dataset squad --train-split train --dev-split none --seed 1 --quiet "$@" --out "$out" >&2
  fi
}
tl="$pre/squad-train-compclip-uselite-lc$lck.as2"
pretrain "$tl" "Comp-Clip + LM + LC + TL" --arch compclip --encoder use-lite --clusters 8 --cluster-k "$lck" --epochs 2
xtl="$pre/squad-train-crossencoder-list.as2"
pretrain "$xtl" "Cross-encoder_list + transfer (SQuAD-sent)" --arch crossencoder --listwise --epochs 1

export RUNS=${RUNS:-results/transformer-$dataset.tsv}
export MODELS=${MODELS:-out/models/$dataset} # kept for scripts/generalisation.sh
DEV=1 exec "$(dirname "$0")/train-table.sh" <(cat <<VARIANTS
Cross-encoder_list (USE-Lite)|--arch crossencoder --listwise ${data[*]}
Comp-Clip + LM (USE-Lite)|--arch compclip --encoder use-lite ${data[*]}
Comp-Clip + LM + LC|--arch compclip --encoder use-lite --clusters 8 --cluster-k $lck ${data[*]}
Comp-Clip + LM + LC + TL|--init $tl ${data[*]}
Cross-encoder_list + transfer (SQuAD-sent)|--init $xtl --listwise ${data[*]}
Dual encoder_list (USE-Lite sentence head)|--arch dual --listwise --score-scale 20 --encoder use-lite --layer none --pool encoder --fine-tune --lr 2e-4 --epochs 2 --batch 8 --clip 1 ${data[*]}
VARIANTS
) "$dataset" "$seeds" "$@"
