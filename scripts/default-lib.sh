# Sourced by default-model.sh and default-heldout.sh: the built-in blend's
# form, which both fit. lexical is the blend's rule-based rankers: $LEXICAL,
# else those of the shipped blend (model/builtin/blend.json, the form
# default-heldout.sh chose). blend_flags are more as2 tune blend flags:
# $BLEND_FLAGS, else --non-negative, as the shipped blend was fitted (set
# BLEND_FLAGS empty for none).
# shellcheck shell=bash disable=SC2034 # both are read by the scripts that source this
lexical=${LEXICAL:-$(python3 -c 'import json, sys; print(",".join(json.load(open(sys.argv[1]))["rankers"][1:]))' \
  "$(dirname "${BASH_SOURCE[0]}")/../model/builtin/blend.json")}
blend_flags=${BLEND_FLAGS---non-negative}
