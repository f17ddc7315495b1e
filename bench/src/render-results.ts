/** RESULTS.md from the results object main.ts collects. */
import type { BundleResult } from "./bundle-size.js";
import type { ClientBenchResult } from "./client-bench.js";
import type { FirstReplyResult } from "./first-reply.js";
import type { MockPacing } from "./mock-process.js";
import { type RagResult, renderRag } from "./rag/render-rag.js";
import { S1_DELTAS, S2_ROUND_TRIPS, S3_DELTAS, S3_REPLIES, SCENARIOS } from "./scenarios.js";
import type { ServiceLoadResult } from "./service/service-load.js";
import type { StoreResult } from "./state-stores.js";
import type { Summary } from "./stats.js";

type Results = {
  machine?: Record<string, unknown>;
  clients?: ClientBenchResult;
  imports?: Array<{ name: string; ms: Summary; cpuMs?: Summary }>;
  firstReplies?: { pacing: MockPacing; results: FirstReplyResult[] };
  bundle?: BundleResult[];
  service?: ServiceLoadResult;
  state?: StoreResult[];
  rag?: RagResult;
};

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

function clientTable(bench: ClientBenchResult, pick: "timings" | "cpu"): string[] {
  const raw = bench.results.find((r) => r.client === "raw fetch");
  const ids = SCENARIOS.map((s) => s.id).filter((id) => bench.results[0]?.[pick][id]);
  const lines = [
    `| client | ${ids.map((id) => `${id} median ms (min–max) | ${id} × raw`).join(" | ")} |`,
    `| --- | ${ids.map(() => "--- | ---").join(" | ")} |`,
  ];
  for (const result of bench.results) {
    const cells = ids.map((id) => {
      const t = result[pick][id]!;
      const ratio = raw ? (t.median / raw[pick][id]!.median).toFixed(2) : "–";
      return `${ms(t.median)} (${ms(t.min)}–${ms(t.max)}) | ${ratio}×`;
    });
    lines.push(`| ${result.client} | ${cells.join(" | ")} |`);
  }
  return lines;
}

/** Deltas one run of a scenario streams (S1, S3), for CPU per delta. */
const DELTAS: Record<string, number> = { S1: S1_DELTAS, S3: S3_REPLIES * S3_DELTAS };
const perDelta = (cpuMs: number, scenario: string) => `${((cpuMs * 1000) / DELTAS[scenario]!).toFixed(2)} µs`;

function pacingText(pacing: MockPacing | undefined): string {
  return pacing?.mode === "paced"
    ? `paced mock: one event per write, ${pacing.paceMs ?? 0} ms apart, real chunk shape`
    : "batched mock: 64 KiB writes, trimmed chunks";
}

function cpuPerDeltaLines(bench: ClientBenchResult): string[] {
  return bench.results
    .filter((r) => r.cpu.S1 || r.cpu.S3)
    .map(
      (r) =>
        `- ${r.client}: ${["S1", "S3"]
          .filter((id) => r.cpu[id])
          .map((id) => `${id} ${perDelta(r.cpu[id]!.median, id)}`)
          .join(", ")}`,
    );
}

function firstReplyTable(first: NonNullable<Results["firstReplies"]>): string[] {
  const raw = (scenario: string) =>
    first.results.find((r) => r.client === "raw fetch" && r.scenario === scenario);
  const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : "–");
  return [
    `## First reply in a fresh process (${pacingText(first.pacing)}; median of ${first.results[0]?.first.wall.runs ?? 0} processes per client, interleaved)`,
    "",
    "| client | scenario | 1st reply wall ms (× raw) | 1st CPU ms (× raw) | 1st CPU per delta | 2nd reply wall ms (× raw) | 2nd CPU ms (× raw) |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...first.results.map((r) => {
      const base = raw(r.scenario);
      return `| ${r.client} | ${r.scenario} | ${ms(r.first.wall.median)} (${ratio(r.first.wall.median, base?.first.wall.median)}) | ${ms(r.first.cpu.median)} (${ratio(r.first.cpu.median, base?.first.cpu.median)}) | ${perDelta(r.first.cpu.median, r.scenario)} | ${ms(r.second.wall.median)} (${ratio(r.second.wall.median, base?.second.wall.median)}) | ${ms(r.second.cpu.median)} (${ratio(r.second.cpu.median, base?.second.cpu.median)}) |`;
    }),
    "",
  ];
}

function roundTripLine(bench: ClientBenchResult, pick: "timings" | "cpu"): string[] {
  const raw = bench.results.find((r) => r.client === "raw fetch")?.[pick].S2;
  if (!raw) return [];
  return bench.results
    .filter((r) => r.client !== "raw fetch" && r[pick].S2)
    .map(
      (r) =>
        `- ${r.client}: ${((r[pick].S2!.median - raw.median) / S2_ROUND_TRIPS).toFixed(2)} ms per round trip over raw`,
    );
}

export function renderResults(results: Results): string {
  const m = results.machine ?? {};
  const out: string[] = ["# Benchmark results", ""];
  out.push(
    `${m.date} · ${m.cpu}, nproc ${m.nproc}, ${m.memoryGiB} GiB · Node ${m.node} · agentscope ${m.agentscope}`,
    "",
    `Packages: ${Object.entries((m.packages as Record<string, string>) ?? {})
      .map(([p, v]) => `${p} ${v}`)
      .join(", ")}.`,
    `Load average at start ${JSON.stringify(m.loadAverageAtStart)}, at end ${JSON.stringify(m.loadAverageAtEnd)} (other work on the machine inflates wall times; the CPU table is steadier).`,
    "",
  );
  const bench = results.clients;
  if (bench) {
    out.push(
      `## S1–S3, steady state (${pacingText(bench.pacing)}; ${bench.runs} measured runs after ${bench.warmup} warm-up runs, clients interleaved)`,
      "",
      ...SCENARIOS.map((s) => `- ${s.id}: ${s.title}`),
      "",
      "Wall-clock time:",
      "",
      ...clientTable(bench, "timings"),
      "",
      "CPU time of the client process (user + system) during the same runs:",
      "",
      ...clientTable(bench, "cpu"),
      "",
      "CPU time per delta (median):",
      "",
      ...cpuPerDeltaLines(bench),
      "",
      "Framework time per tool round trip (S2 median minus raw, divided by the round trips), wall / CPU:",
      "",
      ...roundTripLine(bench, "timings").map(
        (line, i) => `${line} / ${roundTripLine(bench, "cpu")[i]?.split(": ")[1] ?? ""}`,
      ),
      "",
    );
    for (const failure of bench.failed) out.push(`- ${failure.client} could not run: ${failure.reason}`);
  }
  if (results.firstReplies) out.push(...firstReplyTable(results.firstReplies));
  if (results.imports) {
    out.push(
      "## Cold import (fresh `node` process each, `await import()` timed in-process; median (min–max) ms)",
      "",
      "| import | median | min–max | CPU median |",
      "| --- | --- | --- | --- |",
      ...results.imports.map(
        (i) =>
          `| ${i.name} | ${ms(i.ms.median)} | ${ms(i.ms.min)}–${ms(i.ms.max)} | ${i.cpuMs ? ms(i.cpuMs.median) : "–"} |`,
      ),
      "",
    );
  }
  if (results.bundle) {
    out.push(
      '## Core entry bundle (esbuild, minified, ESM, code splitting; what `import "agentscope"` loads)',
      "",
      "| variant | loaded at import | gzip | lazy chunks | largest inputs |",
      "| --- | --- | --- | --- | --- |",
      ...results.bundle.map(
        (b) =>
          `| ${b.variant} | ${kb(b.bytes)} | ${kb(b.gzipBytes)} | ${kb(b.lazyBytes)} | ${b.largest
            .slice(0, 4)
            .map((l) => `${l.input.replace("../", "")} ${kb(l.bytes)}`)
            .join(", ")} |`,
      ),
      "",
    );
  }
  const s = results.service;
  if (s) {
    out.push(
      `## Service: ${s.streams} concurrent SSE reply streams (memory backend, ${s.deltasPerStream} deltas each, one per ${s.intervalMs} ms)`,
      "",
      `Opened ${s.opened}, completed ${s.completed}, ${s.events} deltas received, errors ${s.errorCount}. Delay from the model emitting a delta to the client parsing it: p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms, max ${ms(s.max)} ms. Wall ${ms(s.wallMs)} ms; server peak RSS ${s.serverRssMiB} MiB (${s.rssPerStreamKiB} KiB per stream over idle), server CPU ${s.serverCpuMs} ms (${s.cpuPerDeltaUs} µs per delta); load ${s.load.map((l) => l.toFixed(1)).join(" → ")}.`,
      ...(s.errors.length ? ["", `First errors: ${s.errors.join("; ")}`] : []),
      "",
    );
  }
  if (results.state) {
    out.push(
      "## State stores: save + load pairs per second (20-message state, local servers)",
      "",
      "| backend | sequential | 16 sessions in parallel |",
      "| --- | --- | --- |",
      ...results.state.map((r) =>
        r.error
          ? `| ${r.backend} | not measured: ${r.error} | |`
          : `| ${r.backend} | ${r.sequential!.toFixed(0)}/s | ${r.parallel16!.toFixed(0)}/s |`,
      ),
      "",
    );
  }
  if (results.rag) out.push(...renderRag(results.rag));
  return `${out.join("\n")}\n`;
}
