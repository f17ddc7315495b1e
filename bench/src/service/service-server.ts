/**
 * The agentscope service (createApp + ServiceRuntime) in its own process, on the store STORE
 * (`memory:`, `sqlite:/path.db`, `redis://…`), with an agent whose model streams DELTAS text deltas,
 * one every INTERVAL ms; each delta is the wall-clock times (ms, µs precision) at which the model
 * emitted it and at which it was due. Prints `listening <port>`, then every 250 ms a `stat {...}` line (RSS, heap, open
 * sockets, CPU ms) for the load driver.
 * argv: <deltas> <intervalMs> <maxRuns> [store] [heartbeatMs] [hold] [prefix]
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import type { Msg } from "../../../src/message/index.js";
import type { ChatChunk, ChatModel } from "../../../src/model/index.js";
import { distDir, distUrl } from "../agentscope-dist.js";

type App = typeof import("../../../src/app/index.js");
const app = (await import(distUrl("app/index.js"))) as App;
const { ServiceRuntime } = app;
const honoServerPath = createRequire(join(distDir, "index.js")).resolve("@hono/node-server");
const { serve } = (await import(pathToFileURL(honoServerPath).href)) as typeof import("@hono/node-server");

const args = process.argv.slice(2);
const [deltas = 20, intervalMs = 100, maxRuns = 2000] = args.slice(0, 3).map(Number);
const store = args[3] ?? "memory:";
const heartbeatMs = Number(args[4] ?? 15_000);
// "hold": every reply waits (its stream open, idle but for heartbeats) until SIGUSR1, then starts at
// a random point of its first interval, so 10,000 streams are all open before any delta flows and the
// deltas then arrive spread evenly, not in lockstep. Each waiting reply is woken when its first delta
// is due, not all at release: waking 10,000 at once stalled the server for the first interval.
const hold = args[5] === "hold";
/** Replies waiting for the release, each with the point of the first interval it starts at. */
const waiting: Array<{ offset: number; wake: (start: number) => void }> = [];
let released = false;
process.on("SIGUSR1", () => {
  const at = now();
  released = true;
  // for a server log (AGENTSCOPE_BENCH_SERVER_LOG): lines such as --trace-gc's count ms from start too
  process.stdout.write(`released at ${performance.now().toFixed(0)} ms\n`);
  if (process.env.AGENTSCOPE_BENCH_LOOP_DELAY) logLoopDelay();
  if (process.env.AGENTSCOPE_BENCH_ALLOCATIONS)
    void sampleAllocations(process.env.AGENTSCOPE_BENCH_ALLOCATIONS);
  waiting.sort((a, b) => a.offset - b.offset);
  let next = 0;
  const wakeDue = () => {
    const elapsed = now() - at;
    while (next < waiting.length && waiting[next]!.offset <= elapsed) {
      const { offset, wake } = waiting[next++]!;
      wake(at + offset);
    }
    if (next < waiting.length) setTimeout(wakeDue, 1);
    else waiting.length = 0;
  };
  wakeDue();
});
/**
 * AGENTSCOPE_BENCH_ALLOCATIONS=file: samples every allocation (also those collected since) for 20 s
 * from the release (AGENTSCOPE_BENCH_ALLOCATIONS_WINDOW="from,to" in s from the release, to move it), and writes the sampling heap profile (DevTools' format) there: where the delta
 * phase allocates, by function. AGENTSCOPE_BENCH_ALLOCATIONS_PROMOTED=1 leaves out what a scavenge
 * collected: what is left is what was promoted to the old generation (or is still young at the end).
 */
async function sampleAllocations(file: string): Promise<void> {
  const { Session } = await import("node:inspector");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  // AGENTSCOPE_BENCH_ALLOCATIONS_WINDOW="from,to" (s after the release; default 0,20): e.g. 19,25 for the end burst
  const [from = 0, to = 20] = (process.env.AGENTSCOPE_BENCH_ALLOCATIONS_WINDOW ?? "")
    .split(",")
    .filter(Boolean)
    .map(Number);
  await sleep(from * 1000);
  await post("HeapProfiler.startSampling", {
    samplingInterval: 32768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: !process.env.AGENTSCOPE_BENCH_ALLOCATIONS_PROMOTED,
  });
  await sleep((to - from) * 1000);
  const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: unknown };
  writeFileSync(file, JSON.stringify(profile));
  process.stdout.write(`allocations sampled into ${file}\n`);
}

/**
 * AGENTSCOPE_BENCH_LOOP_DELAY=1 (with AGENTSCOPE_BENCH_SERVER_LOG): from the release, a line every
 * 500 ms with how late the event loop ran (p50, p99, max in ms, sampled every 10 ms): a stall of the
 * server (a long task, a GC pause) shows here, apart from the clients'.
 */
function logLoopDelay(): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  setInterval(() => {
    process.stdout.write(
      `loop delay at ${performance.now().toFixed(0)} ms: p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)}\n`,
    );
    delay.reset();
  }, 500).unref();
}

/**
 * When a held reply's first delta is due: a random point of its first interval, counted from the
 * release (or, for a reply started after it, from now).
 */
function heldStart(): Promise<number> {
  const offset = Math.random() * intervalMs;
  if (released) return Promise.resolve(now() + offset);
  return new Promise((wake) => waiting.push({ offset, wake }));
}
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Warm-up replies' deltas come this far apart (ms), never held. */
const WARM_INTERVAL_MS = 2;

/**
 * A reply asked for "go N" streams N deltas (the load client varies them); else DELTAS. "warm N" is
 * a warm-up reply (the driver's, before the load): N deltas right away, WARM_INTERVAL_MS apart.
 */
function replyAsked(messages: Msg[]): { count: number; warm: boolean } {
  // the context ends with the reply being built (an empty assistant message): find the user's
  const block = messages.findLast((message) => message.role === "user")?.content[0];
  const asked = block?.type === "text" ? /^(go|warm) (\d+)$/.exec(block.text) : null;
  return asked ? { count: Number(asked[2]), warm: asked[1] === "warm" } : { count: deltas, warm: false };
}

/**
 * Emits on a fixed schedule, as a provider does (it never waits for the reader): delta k is due at
 * start + k × interval, and goes out as soon as the loop gets to it once due. Each delta is
 * "<emitted> <due> " (wall-clock ms): the client measures delivery from each.
 */
const timestampModel: ChatModel = {
  name: "timestamps",
  provider: "bench",
  contextSize: 128_000,
  countTokens: () => 10,
  async *stream(messages): AsyncGenerator<ChatChunk> {
    const { count, warm } = replyAsked(messages);
    const every = warm ? WARM_INTERVAL_MS : intervalMs;
    let text = "";
    // held: the first delta at a random point of the first interval after the release; else right away
    const start = hold && !warm ? await heldStart() : now();
    for (let k = 0; k < count; k++) {
      const due = start + k * every;
      const wait = due - now();
      if (wait > 0) await sleep(wait);
      const delta = `${now().toFixed(3)} ${due.toFixed(3)} `;
      text += delta;
      yield { type: "text", blockId: "b1", delta };
    }
    yield {
      type: "final",
      content: [{ type: "text", id: "b1", text }],
      usage: { inputTokens: 10, outputTokens: count },
      stopReason: "stop",
    };
  },
};

const runtime = new ServiceRuntime({
  backend: await app.createBackend(store, {
    // replicas of one run share a prefix (the driver's); a lone server takes its own
    prefix: args[6] || (store.startsWith("redis") ? `bench${process.pid}:` : `bench${process.pid}_`),
    // AGENTSCOPE_BENCH_LOCK_TTL=ms: the backend's run lease TTL (renewed every third of it)
    ...(process.env.AGENTSCOPE_BENCH_LOCK_TTL
      ? { lockTtlMs: Number(process.env.AGENTSCOPE_BENCH_LOCK_TTL) }
      : {}),
  }),
  agents: [{ name: "bench", model: timestampModel }],
  maxConcurrentRuns: maxRuns,
  heartbeatMs,
  // Every load stream is the same (anonymous) user: without this the per-user default (a quarter of
  // maxConcurrentRuns) answers 429 above maxRuns / 4 streams.
  limits: { maxRunsPerUser: maxRuns },
  // and the per-user stream limit (64 by default) the same way
  streams: { maxStreamsPerUser: maxRuns },
});
const server = serve({ fetch: app.createApp(runtime).fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  process.stdout.write(`listening ${info.port}\n`),
) as import("node:http").Server;
server.maxConnections = 100_000;
// Far more connections arrive at once than the default backlog (511) holds.
server.keepAliveTimeout = 60_000;

// AGENTSCOPE_BENCH_SNAPSHOT_AT=N: write one heap snapshot (into the working directory) once N sockets are open.
let snapshotAt = Number(process.env.AGENTSCOPE_BENCH_SNAPSHOT_AT ?? 0);
process.stdout.on("error", () => {}); // the driver went away: keep serving until killed
setInterval(() => {
  server.getConnections((_error, sockets) => {
    if (snapshotAt > 0 && sockets >= snapshotAt) {
      snapshotAt = 0;
      process.stderr.write(`heap snapshot ${v8.writeHeapSnapshot()}\n`);
    }
    const { rss, heapUsed } = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.stdout.write(
      `stat ${JSON.stringify({ rss, heapUsed, sockets, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
    );
  });
}, 250).unref();

const stop = async () => {
  // Held replies wait for SIGUSR1 and never finish their step: do not wait for them for long.
  setTimeout(() => process.exit(0), 2000).unref();
  server.close();
  await runtime.close().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
