# Sourced by default-model.sh and default-heldout.sh: the built-in blend's
# form, which both fit. lexical is the blend's rule-based rankers: $LEXICAL,
# else those of the shipped blend (model/builtin/blend.json, the form
# default-heldout.sh chose). blend_flags are more as2 tune blend flags:
# $BLEND_FLAGS, else --non-negative, as the shipped blend was fitted (set
# BLEND_FLAGS empty for none).
# shellcheck shell=bash disable=SC2034 # both are read by the scripts that source this
lexical=${LEXICAL:-$(python3 -c 'import json, sys; print(",".join(r for r in json.load(open(sys.argv[1]))["rankers"] if not r.endswith(".as2")))' \
  "$(dirname "${BASH_SOURCE[0]}")/../model/builtin/blend.json")}
blend_flags=${BLEND_FLAGS---non-negative}

# fit_blend DEV PAIR OUT MODEL... fits the shipped form (form P,
# results/default-listwise-dual.md): the models (the cross-encoder and the
# dual encoder) at equal say (PAIR, written by scripts/equal-say.py from
# DEV's questions, labels unread), blended listwise with the lexical
# rankers on DEV (OUT, flat: as2 tune blend writes PAIR's models with its
# weights multiplied in).
fit_blend() {
  local dev=$1 pair=$2 out=$3
  shift 3
  python3 "$(dirname "${BASH_SOURCE[0]}")/equal-say.py" "$as2" "$dev" "$pair" "$@"
  # shellcheck disable=SC2086 # $blend_flags: flags, split on spaces
  "$as2" tune blend --listwise $blend_flags --rankers "$pair,$lexical" --dataset jsonl --path "$dev" --out "$out" >&2
}
