// ONNX Runtime counterpart of as2's peer benchmarks: times the fp32 graphs
// that torch_peers.py --export writes, on the CPU execution provider with
// a fixed number of intra-op threads, and prints one line per graph:
// "ort <name> fp32 <items/s>", the mean over --repeats timed runs after a
// warm-up (as torch_peers.py and go test -benchtime Nx).
//
//   NODE_PATH=/tmp/as2-peers-ort/node_modules node scripts/peers/ort.js \
//     --dir /tmp/as2-peers --threads 2 --repeats 3
//
// onnxruntime-node@1.30.0 is installed with npm install --ignore-scripts
// into a temporary folder (its linux-x64 CPU library ships inside the
// package); run.sh does that.
"use strict";
const fs = require("fs");
const path = require("path");
const ort = require("onnxruntime-node");

function arg(name, dflt) {
  const i = process.argv.indexOf("--" + name);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

const dir = arg("dir", "/tmp/as2-peers");
const threads = Number(arg("threads", "2"));
const repeats = Number(arg("repeats", "3"));
const only = arg("only", "");

// The inputs of each graph: the shapes of torch_peers.py. Ids are drawn
// from a fixed linear congruential sequence (their values do not change
// the work).
const shapes = {
  minilm: { n: 100, t: 128, vocab: 30522, types: true },
  "uselite-cross": { n: 100, t: 40, vocab: 8002 },
  "uselite-embed": { n: 100, t: 32, vocab: 8002 },
};

function ids(n, t, vocab) {
  const a = new BigInt64Array(n * t);
  let s = 12345;
  for (let i = 0; i < a.length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    a[i] = BigInt(s % vocab);
  }
  return new ort.Tensor("int64", a, [n, t]);
}

async function main() {
  for (const [name, sh] of Object.entries(shapes)) {
    if (only && !only.split(",").includes(name)) continue;
    const file = path.join(dir, name + ".onnx");
    if (!fs.existsSync(file)) {
      throw new Error(`${file} is missing: run torch_peers.py --export ${dir} first`);
    }
    const sess = await ort.InferenceSession.create(file, {
      executionProviders: ["cpu"],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
    });
    const feeds = { ids: ids(sh.n, sh.t, sh.vocab) };
    if (sh.types) {
      const types = new BigInt64Array(sh.n * sh.t);
      for (let i = 0; i < sh.n; i++) types.fill(1n, i * sh.t + sh.t / 4, (i + 1) * sh.t);
      feeds.types = new ort.Tensor("int64", types, [sh.n, sh.t]);
    }
    await sess.run(feeds); // warm-up
    const t0 = process.hrtime.bigint();
    for (let r = 0; r < repeats; r++) await sess.run(feeds);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`ort ${name} fp32 ${((repeats * sh.n) / secs).toFixed(1)}`);
  }
}

main().catch((e) => {
  console.error(`ort.js: ${e.message}`);
  process.exit(1);
});
