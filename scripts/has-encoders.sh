# Sourced by has-sweep.sh and has-bench.sh (the HAS tables themselves are
# regression specs, regression/specs/has-*.yaml): the as2 train flags that
# put an encoder under HAS and its baselines, per $ENCODER, and
# (has_training_data) the training data of the HAS rows per dataset.
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

# has_training_data DATASET sets has_data_flags (for train and eval alike)
# and has_train_flags (train only): the data the HAS rows train on.
has_training_data() {
  has_data_flags="" has_train_flags=""
  [ "$1" = trecqa ] || return 0
  case ${ENCODER:-bilstm} in
  bilstm)
    # TRAIN-ALL writes numbers as <num>; both sides are normalised alike. An
    # epoch of its 53k pairs takes about 130 s, so the table trains 2 (dev MAP
    # of HAS β 10, seed 1, after one epoch: 0.744; TRAIN's 4.7k pairs reach
    # 0.69 to 0.70 in 4 epochs).
    has_data_flags="--normalize-numbers"
    has_train_flags="--train-split train-all --epochs 2"
    ;;
  use-lite)
    # TrecQA's TRAIN (4.7k pairs, numbers as written): USE-Lite trains at
    # about 70 pairs/s on 2 cores, so an epoch of TRAIN-ALL would take 13
    # minutes, and a pretrained encoder needs less data than a BiLSTM.
    has_train_flags="--train-split train"
    ;;
  esac
}
