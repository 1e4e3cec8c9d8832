# Sourced by has-table.sh and has-bench.sh: the as2 train flags that put an
# encoder under HAS and its baselines, per $ENCODER.
#
#   bilstm    (default) a BiLSTM over GloVe, the table's own rates and epochs
#   use-lite  the paper's setting: no BiLSTM, the hashing layer over a
#             fine-tuned transformer's own states (USE-Lite's here, BERT's
#             there), 3 epochs at the rate the cross-encoder uses for
#             USE-Lite (the "USE-Lite fine-tuned" rows)
case ${ENCODER:-bilstm} in
bilstm) has_encoder_flags="" ;;
use-lite) has_encoder_flags="--encoder use-lite --layer none --fine-tune --lr 2e-4 --clip 1 --epochs 3" ;;
*)
  echo "$(basename "$0"): ENCODER=$ENCODER: want bilstm or use-lite" >&2
  exit 2
  ;;
esac
