// Calls as2 serve with Cohere's own TypeScript SDK (npm cohere-ai), v1 and
// v2 clients, and prints what the SDK parsed: node cohere-sdk.cjs BASE MODEL.
// TestCohereSDK runs it; NODE_PATH names the node_modules holding cohere-ai.
const { CohereClient, CohereClientV2 } = require("cohere-ai");

async function main() {
  const [base, model] = process.argv.slice(2);
  const query = "who wrote hamlet?";
  const documents = ["Hamlet is a tragedy.", "Shakespeare wrote Hamlet.", "Denmark is cold."];
  const v1 = new CohereClient({ token: "unused", environment: base });
  const r1 = await v1.rerank({ model, query, documents, topN: 2, returnDocuments: true });
  const v2 = new CohereClientV2({ token: "unused", environment: base });
  const r2 = await v2.rerank({ model, query, documents, topN: 2 });
  const pick = (r) => ({
    id: r.id,
    version: r.meta && r.meta.apiVersion && r.meta.apiVersion.version,
    results: r.results.map((x) => ({ index: x.index, relevanceScore: x.relevanceScore, text: x.document ? x.document.text : undefined })),
  });
  console.log(JSON.stringify({ v1: pick(r1), v2: pick(r2) }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
