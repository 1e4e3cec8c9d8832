#!/usr/bin/env bash
# Reproduces the Cosinet rows of the README (the Cosinet paper's Table 4)
# with scripts/train-table.sh: every variant, seeds 1..N, evaluated on test.
#
#   scripts/cosinet-table.sh [dataset] [seeds] [extra as2 train flags...]
#   scripts/cosinet-table.sh wikiqa 5
#   ONLY='BiRNN' scripts/cosinet-table.sh wikiqa 5 --paper   # rows matching a regex
set -euo pipefail
dataset=${1:-wikiqa}
seeds=${2:-5}
shift $(( $# > 2 ? 2 : $# ))
exec "$(dirname "$0")/train-table.sh" <(cat <<'VARIANTS'
Cosinet|--arch cosinet --rnn none
Cosinet_list|--arch cosinet --listwise --rnn none
Cosinet_list + RNN|--arch cosinet --listwise --rnn rnn
Cosinet_list + BiRNN|--arch cosinet --listwise --rnn birnn
Cosinet_list + LSTM|--arch cosinet --listwise --rnn lstm
Cosinet_list + BiLSTM|--arch cosinet --listwise --rnn bilstm
VARIANTS
) "$dataset" "$seeds" "$@"
