#!/usr/bin/env bash
# The side-by-side speed table of issue 59: as2 (float and int8), ONNX
# Runtime 1.30 fp32, PyTorch 1.13 fp32 and PyTorch int8 dynamic
# quantisation, on three shapes with random weights, each runtime on the
# same number of threads, one after the other in one window, twice:
#
#   minilm         MiniLM-L6-shaped cross-encoder, 100 pairs of 128 tokens
#                  (BenchmarkScore6x384, BenchmarkPeersScore6x384)
#   uselite-cross  the built-in model's cross-encoder (USE-Lite), 100 pairs
#                  of 40 tokens (BenchmarkPeersScoreUSELite)
#   uselite-embed  the built-in model's sentence encoder (USE-Lite's
#                  sentence head), 100 sentences of 32 tokens
#                  (BenchmarkPeersEmbed)
#
# It installs what is missing under /tmp (Debian's python3-torch through
# apt-get; onnxruntime-node@1.30.0 from npm with --ignore-scripts, whose
# linux-x64 CPU library ships inside the package), exports the PyTorch
# graphs to ONNX once, then prints rates and the ratios of as2 against
# ONNX Runtime fp32 and PyTorch int8, with the CPU model, kernel.Describe()
# and the load average before each runtime. Nothing is written in the
# repository.
#
#   scripts/peers/run.sh            # from the repository root
#   THREADS=2 ROUNDS=2 REPEATS=3 WORK=/tmp/as2-peers scripts/peers/run.sh
#
# The Hugging Face families' base shapes (XLM-R, RoBERTa, DistilBERT,
# ELECTRA, DeBERTa-v3, ModernBERT) against PyTorch run alone, with
# scripts/peers/families.sh (issue 60).
set -euo pipefail

cd "$(dirname "$0")/../.."
here=scripts/peers
threads=${THREADS:-2}
rounds=${ROUNDS:-2}
repeats=${REPEATS:-3}
work=${WORK:-/tmp/as2-peers}
py=/usr/bin/python3 # Debian's, where python3-torch installs; not a pyenv one
mkdir -p "$work"
results=$work/results.txt
: >"$results"

if ! $py -c 'import torch' 2>/dev/null; then
	echo "installing python3-torch (Debian) ..." >&2
	apt-get update -qq && apt-get install -y -qq python3-torch >&2
fi
. scripts/peers/blas.sh
ortdir=$work/ort
if [ ! -f "$ortdir/node_modules/onnxruntime-node/package.json" ]; then
	echo "installing onnxruntime-node@1.30.0 into $ortdir ..." >&2
	mkdir -p "$ortdir"
	(cd "$ortdir" && npm install --ignore-scripts --no-audit --no-fund onnxruntime-node@1.30.0 >&2)
fi

# The graphs are exported once, before the timed window (the export takes
# minutes on a busy machine).
for name in minilm uselite-cross uselite-embed; do
	if [ ! -f "$work/$name.onnx" ]; then
		echo "exporting the fp32 graphs to $work ..." >&2
		$py $here/torch_peers.py --threads "$threads" --repeats 0 --export "$work" 2>/dev/null >/dev/null
		break
	fi
done

machine=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
torchv=$($py -c 'import torch; print(torch.__version__)')
ortv=$(node -p "require('$ortdir/node_modules/onnxruntime-node/package.json').version")
echo "machine: $machine, $(nproc) CPUs; $threads threads; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "go $(go env GOVERSION), torch $torchv, onnxruntime-node $ortv"

# as2's benchmark lines "BenchmarkX/sub-2  3  52.9 pairs/s" become
# "as2 <shape> <precision> <rate>".
as2() {
	GOMAXPROCS=$threads go test -run '^$' -bench 'Score6x384|Peers' -benchtime "${repeats}x" -v \
		./model/crossencoder/ ./encoder/uselite/ 2>&1 | tee -a "$work/go.log" | awk '
		/kernels:/ && !k { sub(/.*kernels: /, ""); print "kernels " $0; k = 1 }
		$1 ~ /^Benchmark/ && ($4 == "pairs/s" || $4 == "sentences/s") {
			n = $1; sub(/-[0-9]+$/, "", n)
			if (n == "BenchmarkScore6x384") print "as2 minilm float-Score6x384", $3
			else if (n == "BenchmarkPeersScore6x384/float") print "as2 minilm float", $3
			else if (n == "BenchmarkPeersScore6x384/int8") print "as2 minilm int8", $3
			else if (n == "BenchmarkPeersScoreUSELite/float") print "as2 uselite-cross float", $3
			else if (n == "BenchmarkPeersScoreUSELite/int8") print "as2 uselite-cross int8", $3
			else if (n == "BenchmarkPeersEmbed/float/batch") print "as2 uselite-embed float", $3
			else if (n == "BenchmarkPeersEmbed/int8/batch") print "as2 uselite-embed int8", $3
			else if (n == "BenchmarkPeersEmbed/float/single") print "as2 uselite-embed float-single", $3
			else if (n == "BenchmarkPeersEmbed/int8/single") print "as2 uselite-embed int8-single", $3
		}'
}

# Each runtime's line is preceded by the load average when it starts, and
# even rounds run the peers before as2, so that a busy spell on the shared
# machine does not always fall on the same runtime.
load() { echo "round $1, $2: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results" >&2; }
run_as2() { load "$1" as2 && as2 | sed "s/^/$1 /" >>"$results"; }
run_peers() {
	load "$1" torch
	$py $here/torch_peers.py --threads "$threads" --repeats "$repeats" 2>/dev/null | sed "s/^/$1 /" >>"$results"
	load "$1" ort
	NODE_PATH=$ortdir/node_modules node $here/ort.js --dir "$work" --threads "$threads" --repeats "$repeats" |
		sed "s/^/$1 /" >>"$results"
}
for round in $(seq "$rounds"); do
	if ((round % 2)); then
		run_as2 "$round"
		run_peers "$round"
	else
		run_peers "$round"
		run_as2 "$round"
	fi
done
echo "after: load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results" >&2

$py $here/table.py "$results"
