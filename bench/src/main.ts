/**
 * `npm run bench`: S1–S3 for every client, cold imports, the core bundle size, the service under
 * 1,000 SSE streams and the state stores; writes results/latest.json and RESULTS.md.
 * Flags: --runs=N (default 7), --warmup=N (default 2), --only=s,first,import,bundle,service,state,rag,
 * --rag-chunks=10000,100000 (search sizes), --rag-queries=N (default 200), --rag-stores=memory,sqlite,lancedb,
 * --gc (force a full GC before each S1–S3 measurement), --mock=batched|paced and --pace-ms=N (how
 * the mock streams, see mock-server.ts), --clients=raw,agentscope,... (S1–S3 and first),
 * --first-samples=N (fresh processes per client for the first reply, default 5).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { runBundleSize } from "./bundle-size.js";
import { runClientBench } from "./client-bench.js";
import { CLIENT_MODULES } from "./clients/registry.js";
import { runColdImports } from "./cold-import.js";
import { runFirstReplies } from "./first-reply.js";
import type { MockPacing } from "./mock-process.js";
import { runRag } from "./rag/rag-bench.js";
import { renderResults } from "./render-results.js";
import { runServiceLoad } from "./service/service-load.js";
import { runStateStores } from "./state-stores.js";

const flag = (name: string, fallback: string) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ALL_PARTS = "s,first,import,bundle,service,state,rag";
const parts = new Set(flag("only", ALL_PARTS).split(","));
const pacing: MockPacing = {
  mode: flag("mock", "batched") === "paced" ? "paced" : "batched",
  paceMs: Number(flag("pace-ms", "0")),
};
const onlyClients = process.argv.some((arg) => arg.startsWith("--clients="))
  ? flag("clients", "").split(",")
  : undefined;
const log = (line: string) => process.stderr.write(`${line}\n`);
const benchDir = fileURLToPath(new URL("..", import.meta.url));

function version(pkg: string): string {
  try {
    const path = fileURLToPath(new URL(`../node_modules/${pkg}/package.json`, import.meta.url));
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

function gitHead(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: benchDir,
      encoding: "utf8",
    }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "../src"], {
      cwd: benchDir,
      encoding: "utf8",
    });
    return dirty.trim() ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return "?";
  }
}

const machine = {
  date: new Date().toISOString(),
  cpu: cpus()[0]?.model ?? "?",
  nproc: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
  node: process.version,
  agentscope: gitHead(),
  packages: Object.fromEntries(
    [
      "openai",
      "ai",
      "@ai-sdk/openai-compatible",
      "@openai/agents",
      "zod",
      "esbuild",
      "@langchain/core",
      "@langchain/classic",
      "@langchain/textsplitters",
    ].map((p) => [p, version(p)]),
  ),
};

const results: Record<string, unknown> = { machine };
if (parts.has("s")) {
  log("S1–S3: clients interleaved");
  results.clients = await runClientBench({
    runs: Number(flag("runs", "7")),
    warmup: Number(flag("warmup", "2")),
    forceGc: process.argv.includes("--gc"),
    pacing,
    ...(onlyClients ? { only: onlyClients } : {}),
    log,
  });
}
if (parts.has("first")) {
  log(`first reply in a fresh process (${pacing.mode} mock)`);
  results.firstReplies = {
    pacing,
    results: await runFirstReplies({
      samples: Number(flag("first-samples", "5")),
      clients: onlyClients ?? Object.keys(CLIENT_MODULES),
      scenarios: ["S1", "S3"],
      pacing,
      log,
    }),
  };
}
if (parts.has("import")) {
  log("cold imports");
  results.imports = runColdImports(Number(flag("import-samples", "9")));
}
if (parts.has("bundle")) {
  log("bundle size");
  results.bundle = await runBundleSize();
}
if (parts.has("service")) {
  const streams = Number(flag("streams", "1000"));
  log(`service: ${streams.toLocaleString("en")} concurrent SSE streams`);
  results.service = await runServiceLoad({ streams, deltas: 20, intervalMs: 100 });
}
if (parts.has("state")) {
  log("state stores");
  results.state = await runStateStores();
}
if (parts.has("rag")) {
  const sizes = flag("rag-chunks", "10000").split(",").map(Number);
  log(`RAG: ingest, search at ${sizes.join(", ")} chunks, LangChain.js, quality`);
  const stores = flag("rag-stores", "");
  results.rag = await runRag({
    sizes,
    queries: Number(flag("rag-queries", "200")),
    ...(stores ? { stores: stores.split(",") } : {}),
    log,
  });
}
(results.machine as Record<string, unknown>).loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));

mkdirSync(new URL("../results", import.meta.url), { recursive: true });
writeFileSync(new URL("../results/latest.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
const markdown = renderResults(results);
if (parts.size === ALL_PARTS.split(",").length && pacing.mode === "batched" && !onlyClients)
  writeFileSync(new URL("../RESULTS.md", import.meta.url), markdown);
process.stdout.write(markdown);
