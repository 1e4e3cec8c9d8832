#!/usr/bin/env bash
# Issue 60's speed table: each Hugging Face family as2 reads, at its base
# shape with random weights, 32 pairs of 128 tokens, as2 (float32 and int8)
# against PyTorch 1.13 (fp32 and int8 dynamic quantisation), on the same
# number of threads:
#
#   xlmr        XLM-R base (12 layers, 768, 12 heads, FFN 3072; vocabulary
#               cut to 30522)
#   roberta     RoBERTa base (the same shape, vocabulary 50265)
#   distilbert  DistilBERT base (6 layers)
#   electra     ELECTRA base (embeddings as wide as the layers)
#   deberta     DeBERTa-v3 base (relative attention, 256 log buckets, 512
#               positions; vocabulary cut to 30522)
#   modernbert  ModernBERT base (22 layers, GeGLU 1152, window 128, global
#               every third layer)
#
# as2 is BenchmarkFamilies (model/crossencoder/families_bench_test.go),
# PyTorch scripts/peers/families.py. Each family runs as2 then PyTorch
# (PyTorch first in even rounds), so that both sides of a ratio share a
# window; the load average is printed before each. Then the table
# (scripts/peers/table.py). Nothing is written in the repository.
#
#   scripts/peers/families.sh                   # from the repository root
#   THREADS=2 ROUNDS=2 REPEATS=2 ONLY=xlmr,deberta WORK=/tmp/as2-families scripts/peers/families.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
here=scripts/peers
threads=${THREADS:-2}
rounds=${ROUNDS:-2}
repeats=${REPEATS:-2}
only=${ONLY:-xlmr,roberta,distilbert,electra,deberta,modernbert}
work=${WORK:-/tmp/as2-families}
py=/usr/bin/python3 # Debian's, where python3-torch installs; not a pyenv one
mkdir -p "$work"
results=$work/results.txt
: >"$results"

if ! $py -c 'import torch, sentencepiece' 2>/dev/null; then
	echo "installing python3-torch and python3-sentencepiece (Debian) ..." >&2
	apt-get update -qq && apt-get install -y -qq python3-torch python3-sentencepiece >&2
fi
. scripts/peers/blas.sh
# The test binary is built before the timed window.
go test -c -o "$work/crossencoder.test" ./model/crossencoder
bin=$(realpath "$work/crossencoder.test")

machine=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "machine: $machine, $(nproc) CPUs; $threads threads; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "go $(go env GOVERSION), torch $($py -c 'import torch; print(torch.__version__)')"

load() { echo "round $1, $2 $3: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results" >&2; }
# as2's lines "BenchmarkFamilies/xlmr/float-2  2  4.72 pairs/s" become
# "<round> as2 xlmr float 4.72".
run_as2() {
	load "$1" "$2" as2
	(cd model/crossencoder && GOMAXPROCS=$threads "$bin" -test.run '^$' -test.bench "Families/^$2\$" \
		-test.benchtime "${repeats}x" -test.v) 2>&1 | tee -a "$work/go.log" | awk -v r="$1" '
		/kernels:/ && !k { sub(/.*kernels: /, ""); print r, "kernels", $0; k = 1 }
		$1 ~ /^BenchmarkFamilies\// && $4 == "pairs/s" {
			split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); print r, "as2", p[2], p[3], $3
		}' >>"$results"
}
run_torch() {
	load "$1" "$2" torch
	$py $here/families.py --threads "$threads" --repeats "$repeats" --only "$2" | sed "s/^/$1 /" >>"$results"
}
for round in $(seq "$rounds"); do
	for fam in ${only//,/ }; do
		if ((round % 2)); then
			run_as2 "$round" "$fam"
			run_torch "$round" "$fam"
		else
			run_torch "$round" "$fam"
			run_as2 "$round" "$fam"
		fi
	done
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results" >&2

$py $here/table.py "$results"
