/**
 * The service holding N concurrent SSE reply streams: the server in one process (or several replicas
 * on one shared store), the load split over several client processes (so parsing never competes with
 * the server's event loop). Reports the delivery delay (client parse time − model emit time) per
 * delta over the whole run and over the "held" phase (every stream open), the held phase's delay from
 * the time each delta was due (the model keeps a schedule, so an overloaded server shows here), errors, peak open sockets, the server's peak RSS, its RSS per
 * stream over the idle baseline, its CPU time, and the load average.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { spawnTsx, waitForLine } from "../mock-process.js";
import { warmUp } from "./warm-up.js";

export interface ServiceLoadOptions {
  streams?: number;
  deltas?: number;
  intervalMs?: number;
  /** `memory:` (default), `sqlite` or `sqlite:` (a fresh file under /tmp, removed after), `sqlite:PATH`, or a `redis://` URL. */
  store?: string;
  /** Client processes (default: one per 2,500 streams, at least 1). */
  clients?: number;
  /** Streams being opened at once, per client (default 200). */
  openConcurrency?: number;
  /** Node flags for the server (`--max-semi-space-size=64`, `--cpu-prof`, `--trace-gc`; default none). */
  serverNodeArgs?: string[];
  /**
   * Open every stream first (each reply waits, its stream idle), then release them all; each starts
   * at a random point of its first interval. Measures delivery with all N streams open.
   */
  hold?: boolean;
  /**
   * Replies per session, back to back (default 1). Above 1 the load is a closed loop: each session
   * opens its next reply stream as soon as one ends, and first replies vary in length (1 to `deltas`
   * deltas), so replies end spread in time instead of all in the last interval.
   */
  replies?: number;
  /**
   * Each client connection closes as soon as its session is done (default: all stay open, as a
   * browser's keep-alive connections do, until every session is done). In the burst scenario that
   * is 10,000 closes within one interval, on the same cores as the server.
   */
  closeWhenDone?: boolean;
  /**
   * Server processes sharing the store (default 1; more needs a shared store: redis or postgres).
   * Client k talks to replica k mod N; CPU and RSS are summed over the replicas.
   */
  replicas?: number;
  /**
   * Full replies the driver runs on each server before the load (default 0), so that the load meets
   * code the JIT has compiled, as in a service that has been up a while. The idle RSS and CPU
   * baselines are taken after them.
   */
  warmup?: number;
}

export interface ServiceLoadResult {
  streams: number;
  serverNodeArgs: string[];
  store: string;
  deltasPerStream: number;
  repliesPerSession: number;
  /** Whether each client connection closed as soon as its session was done. */
  closeWhenDone: boolean;
  intervalMs: number;
  clients: number;
  opened: number;
  completed: number;
  events: number;
  p50: number;
  p99: number;
  max: number;
  /** The same over deltas received once all of a client's streams were open. */
  held: { events: number; p50: number; p99: number; max: number };
  /** Held phase, from the time each delta was due (so a server that falls behind shows it). */
  heldFromDue: { events: number; p50: number; p99: number; max: number };
  /**
   * Closed loop only (`replies` > 1): the same over deltas due while every session still loops (until
   * the first can have finished its last reply), i.e. with all N streams open and ends spread in time.
   */
  loopFromDue?: { events: number; p50: number; p99: number; max: number };
  /** The same per 2 s of the schedule (seconds since the first due delta): where a run falls behind. */
  timeline: Array<{ atS: number; events: number; p50: number; p99: number }>;
  replicas: number;
  /** Warm-up replies per server before the load. */
  warmup: number;
  /** Most sockets open on the server at once (sampled every 250 ms). */
  peakSockets: number;
  /** Slowest client's time to create its sessions, then to have every stream open. */
  sessionsMs: number;
  openedAllMs: number;
  wallMs: number;
  errorCount: number;
  errors: string[];
  /** Server resident memory (MiB): idle before the load, peak (VmHWM), per stream over idle (KiB). */
  serverIdleRssMiB: number;
  serverRssMiB: number;
  rssPerStreamKiB: number;
  /** Server CPU time during the load (ms) and per delivered delta (µs). */
  serverCpuMs: number;
  cpuPerDeltaUs: number;
  hold: boolean;
  /** Server RSS (MiB) with every stream open and idle (hold only), and per stream over idle (KiB). */
  heldRssMiB?: number;
  heldRssPerStreamKiB?: number;
  /** Hold only: server CPU (ms) to create the sessions and open the streams, then per delta delivered after release (µs). */
  rampCpuMs?: number;
  deliveryCpuPerDeltaUs?: number;
  /** 1-minute load average at the start and at the end. */
  load: [number, number];
}

interface ClientLine {
  opened: number;
  completed: number;
  peakOpen: number;
  sessionsMs: number;
  openedAllMs: number;
  wallMs: number;
  delays: number[];
  heldDelays: number[];
  heldFromDue: number[];
  heldDue: number[];
  errors: string[];
  errorCount: number;
}

interface Stat {
  rss: number;
  heapUsed: number;
  sockets: number;
  cpuMs: number;
}

function percentiles(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const pick = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  return { events: sorted.length, p50: pick(0.5), p99: pick(0.99), max: sorted.at(-1) ?? 0 };
}

export async function runServiceLoad(options: ServiceLoadOptions = {}): Promise<ServiceLoadResult> {
  const streams = options.streams ?? 1000;
  const deltas = options.deltas ?? 20;
  const intervalMs = options.intervalMs ?? 100;
  const clients = options.clients ?? Math.max(1, Math.ceil(streams / 2500));
  const sqliteFile = `/tmp/agentscope-bench-service-${process.pid}.db`;
  // `sqlite` and `sqlite:` alike get a fresh file, removed after the run: `sqlite:` with no path would
  // otherwise be the service's default file, which grows from one run to the next.
  const freshSqlite = options.store === "sqlite" || options.store === "sqlite:";
  const store = freshSqlite ? `sqlite:${sqliteFile}` : (options.store ?? "memory:");
  const load0 = loadavg()[0]!;
  const replicas = options.replicas ?? 1;
  const replies = options.replies ?? 1;
  const serverNodeArgs = options.serverNodeArgs ?? [];
  const serverLog = process.env.AGENTSCOPE_BENCH_SERVER_LOG;
  const prefix = replicas > 1 ? `bench${process.pid}${store.startsWith("redis") ? ":" : "_"}` : "";
  const servers = Array.from({ length: replicas }, () => {
    const child = spawnTsx(
      new URL("./service-server.ts", import.meta.url).href,
      [
        String(deltas),
        String(intervalMs),
        String(streams * 2),
        store,
        "15000",
        options.hold ? "hold" : "",
        prefix,
      ],
      serverNodeArgs,
    );
    const server = { child, last: undefined as Stat | undefined, peakSockets: 0 };
    child.stdout!.on("data", (data: Buffer) => {
      for (const line of data.toString().split("\n")) {
        if (!line.startsWith("stat ")) {
          // AGENTSCOPE_BENCH_SERVER_LOG=file: the server's other output (e.g. --trace-gc) goes there
          if (serverLog && line) appendFileSync(serverLog, `${line}\n`);
          continue;
        }
        server.last = JSON.parse(line.slice(5)) as Stat;
        server.peakSockets = Math.max(server.peakSockets, server.last.sockets);
      }
    });
    return server;
  });
  const zero: Stat = { rss: 0, heapUsed: 0, sockets: 0, cpuMs: 0 };
  /** The replicas' latest stats, summed. */
  const now = (): Stat =>
    servers.reduce(
      (sum, { last = zero }) => ({
        rss: sum.rss + last.rss,
        heapUsed: sum.heapUsed + last.heapUsed,
        sockets: sum.sockets + last.sockets,
        cpuMs: sum.cpuMs + last.cpuMs,
      }),
      zero,
    );
  try {
    const ports = await Promise.all(
      servers.map(({ child }) => waitForLine(child, /listening (\d+)/, "the agentscope service")),
    );
    const warmup = options.warmup ?? 0;
    if (warmup > 0) await Promise.all(ports.map((port) => warmUp(`http://127.0.0.1:${port}`, warmup)));
    await new Promise((resolve) => setTimeout(resolve, 600));
    const idle = now();
    const share = (k: number) => Math.floor(streams / clients) + (k < streams % clients ? 1 : 0);
    const children = Array.from({ length: clients }, (_, k) =>
      spawnTsx(new URL("./service-client.ts", import.meta.url).href, [
        `http://127.0.0.1:${ports[k % replicas]}`,
        String(share(k)),
        String(deltas),
        String(options.openConcurrency ?? 200),
        String(replies),
        options.closeWhenDone ? "close" : "",
      ]),
    );
    const finished = children.map((child) => waitForLine(child, /^(\{.*\})$/m, "a load client"));
    let held: Stat | undefined;
    if (options.hold) {
      await Promise.all(children.map((child) => waitForLine(child, /^(all open)$/m, "a load client")));
      await new Promise((resolve) => setTimeout(resolve, 500));
      held = now();
      for (const { child } of servers) child.kill("SIGUSR1");
    }
    const lines = (await Promise.all(finished)).map((line) => JSON.parse(line) as ClientLine);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const end = now();
    const peak = servers.reduce((sum, { child }) => sum + peakRss(child.pid), 0);
    const all = percentiles(lines.flatMap((l) => l.delays));
    const sum = (f: (l: ClientLine) => number) => lines.reduce((total, l) => total + f(l), 0);
    return {
      streams,
      serverNodeArgs,
      store: options.store ?? "memory:",
      replicas,
      warmup: options.warmup ?? 0,
      deltasPerStream: deltas,
      repliesPerSession: replies,
      closeWhenDone: options.closeWhenDone ?? false,
      intervalMs,
      clients,
      opened: sum((l) => l.opened),
      completed: sum((l) => l.completed),
      ...all,
      held: percentiles(lines.flatMap((l) => l.heldDelays)),
      heldFromDue: percentiles(lines.flatMap((l) => l.heldFromDue)),
      ...(replies > 1 ? { loopFromDue: loopPercentiles(lines, (replies - 1) * deltas * intervalMs) } : {}),
      timeline: timeline(
        lines.flatMap((l) => l.heldDue),
        lines.flatMap((l) => l.heldFromDue),
      ),
      peakSockets: servers.reduce((total, server) => total + server.peakSockets, 0),
      sessionsMs: Math.max(...lines.map((l) => l.sessionsMs)),
      openedAllMs: Math.max(...lines.map((l) => l.openedAllMs)),
      wallMs: Math.max(...lines.map((l) => l.wallMs)),
      errorCount: sum((l) => l.errorCount),
      errors: lines.flatMap((l) => l.errors).slice(0, 3),
      serverIdleRssMiB: Math.round(idle.rss / 2 ** 20),
      serverRssMiB: peak,
      rssPerStreamKiB: Math.round(((peak - idle.rss / 2 ** 20) * 1024) / streams),
      serverCpuMs: Math.round(end.cpuMs - idle.cpuMs),
      cpuPerDeltaUs: Math.round(((end.cpuMs - idle.cpuMs) * 1000) / Math.max(1, all.events)),
      hold: options.hold ?? false,
      ...(held
        ? {
            heldRssMiB: Math.round(held.rss / 2 ** 20),
            heldRssPerStreamKiB: Math.round((held.rss - idle.rss) / 1024 / streams),
            rampCpuMs: Math.round(held.cpuMs - idle.cpuMs),
            deliveryCpuPerDeltaUs: Math.round(((end.cpuMs - held.cpuMs) * 1000) / Math.max(1, all.events)),
          }
        : {}),
      load: [load0, loadavg()[0]!],
    };
  } finally {
    const pids = servers.map(({ child }) => child.pid);
    for (const { child } of servers) child.kill();
    await Promise.all(servers.map(({ child }) => new Promise((resolve) => child.once("exit", resolve))));
    if (freshSqlite)
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${sqliteFile}${suffix}`, { force: true });
    if (store.startsWith("redis"))
      for (const pattern of prefix ? [`${prefix}*`] : pids.map((pid) => `bench${pid}:*`))
        dropRedisKeys(store, pattern);
    if (store.startsWith("postgres"))
      for (const tablePrefix of prefix ? [prefix] : pids.map((pid) => `bench${pid}_`))
        dropPostgresTables(store, tablePrefix);
  }
}

/** Drops a run's tables (its prefix), so runs do not pile up tables in the database. */
function dropPostgresTables(url: string, tablePrefix: string): void {
  try {
    const tables = ["events", "sessions", "leases", "state", "state_migrations"].map(
      (t) => `${tablePrefix}${t}`,
    );
    execFileSync("psql", [url, "-qc", `DROP TABLE IF EXISTS ${tables.join(", ")}`], { stdio: "ignore" });
  } catch {
    // psql missing: the tables stay (prefixed by the server's pid)
  }
}

/** The smallest value (Math.min(...values) overflows the stack on a few hundred thousand). */
function earliest(values: number[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const value of values) if (value < min) min = value;
  return min;
}

/** From-due delays of the deltas due within `windowMs` of the first. */
function loopPercentiles(lines: ClientLine[], windowMs: number) {
  const due = lines.flatMap((l) => l.heldDue);
  const delays = lines.flatMap((l) => l.heldFromDue);
  const end = earliest(due) + windowMs;
  return percentiles(delays.filter((_, i) => due[i]! < end));
}

/** Delays grouped by when their delta was due, in 2 s buckets from the first. */
function timeline(due: number[], delays: number[]): ServiceLoadResult["timeline"] {
  const start = earliest(due);
  const buckets = new Map<number, number[]>();
  due.forEach((at, i) => {
    const bucket = Math.floor((at - start) / 2000);
    const list = buckets.get(bucket) ?? [];
    list.push(delays[i]!);
    buckets.set(bucket, list);
  });
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, list]) => ({ atS: bucket * 2, ...percentiles(list) }))
    .map(({ atS, events, p50, p99 }) => ({ atS, events, p50, p99 }));
}

function peakRss(pid: number | undefined): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** Removes the keys one run left in Redis (its own prefix only). */
function dropRedisKeys(url: string, pattern: string): void {
  try {
    const script = `for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end return 1`;
    execFileSync("redis-cli", ["-u", url, "EVAL", script, "0", pattern], { stdio: "ignore" });
  } catch {
    // redis-cli missing: the keys stay (prefixed by the server's pid)
  }
}
