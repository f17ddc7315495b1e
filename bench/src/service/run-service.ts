/**
 * The service load on its own (without `npm run bench`): prints the result and appends it to
 * results/service-runs.jsonl. Build first (`npm run build`), or point AGENTSCOPE_BENCH_DIST at a build.
 *   tsx src/service/run-service.ts --streams=10000 --deltas=30 --interval=1000 --store=memory: \
 *     [--hold] [--replies=N] [--close-when-done] [--clients=N] [--open=200] [--replicas=N] [--warmup=N] [--timeline] [--label=after] [--server-args="--max-semi-space-size=64 --cpu-prof --cpu-prof-dir=results/profiles"]
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { runServiceLoad } from "./service-load.js";

const flag = (name: string, fallback?: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const number = (name: string) => (flag(name) === undefined ? undefined : Number(flag(name)));

const result = await runServiceLoad({
  streams: number("streams") ?? 1000,
  deltas: number("deltas") ?? 20,
  intervalMs: number("interval") ?? 100,
  store: flag("store", "memory:")!,
  ...(number("clients") ? { clients: number("clients")! } : {}),
  ...(number("open") ? { openConcurrency: number("open")! } : {}),
  hold: process.argv.includes("--hold"),
  ...(number("replies") ? { replies: number("replies")! } : {}),
  closeWhenDone: process.argv.includes("--close-when-done"),
  ...(number("replicas") ? { replicas: number("replicas")! } : {}),
  ...(number("warmup") ? { warmup: number("warmup")! } : {}),
  ...(flag("server-args") !== undefined
    ? { serverNodeArgs: flag("server-args")!.split(" ").filter(Boolean) }
    : {}),
});
const record = { label: flag("label", ""), at: new Date().toISOString(), ...result };
const dir = new URL("../../results/", import.meta.url);
mkdirSync(dir, { recursive: true });
appendFileSync(new URL("service-runs.jsonl", dir), `${JSON.stringify(record)}\n`);
const f = (n: number) => n.toFixed(1);
process.stdout.write(
  `${record.label} ${result.store}${result.replicas > 1 ? ` × ${result.replicas} replicas` : ""}${result.warmup ? ` after ${result.warmup} warm-up replies` : ""} streams ${result.streams} (${result.deltasPerStream} deltas / ${result.intervalMs} ms${result.repliesPerSession > 1 ? `, ${result.repliesPerSession} replies per session in a closed loop` : ""}, ${result.clients} clients${result.closeWhenDone ? ", each closing when done" : ""}): ` +
    `server node ${result.serverNodeArgs.join(" ") || "(defaults)"}; opened ${result.opened} completed ${result.completed} errors ${result.errorCount} peak sockets ${result.peakSockets}\n` +
    `  delivery ms p50/p99/max ${f(result.p50)} / ${f(result.p99)} / ${f(result.max)}; held ${f(result.held.p50)} / ${f(result.held.p99)} / ${f(result.held.max)} (${result.held.events} deltas)\n` +
    `  held, from when each delta was due: p50/p99/max ${f(result.heldFromDue.p50)} / ${f(result.heldFromDue.p99)} / ${f(result.heldFromDue.max)}\n` +
    (result.loopFromDue
      ? `  closed loop, every session looping (${result.loopFromDue.events} deltas), from due: p50/p99/max ${f(result.loopFromDue.p50)} / ${f(result.loopFromDue.p99)} / ${f(result.loopFromDue.max)}\n`
      : "") +
    (result.heldRssMiB
      ? `  all ${result.streams} open and idle: server RSS ${result.heldRssMiB} MiB, ${result.heldRssPerStreamKiB} KiB/stream; ramp CPU ${result.rampCpuMs} ms, delivery CPU ${result.deliveryCpuPerDeltaUs} µs/delta\n`
      : "") +
    `  server RSS idle ${result.serverIdleRssMiB} MiB, peak ${result.serverRssMiB} MiB, ${result.rssPerStreamKiB} KiB/stream; CPU ${result.serverCpuMs} ms (${result.cpuPerDeltaUs} µs/delta)\n` +
    `  sessions ${Math.round(result.sessionsMs)} ms, all open after ${Math.round(result.openedAllMs)} ms, wall ${Math.round(result.wallMs)} ms; load ${result.load.map((l) => l.toFixed(1)).join(" → ")}\n` +
    (result.errors.length ? `  errors: ${result.errors.join("; ")}\n` : "") +
    (process.argv.includes("--timeline")
      ? result.timeline
          .map(
            (t) =>
              `  due at +${t.atS} s: ${t.events} deltas, from due p50/p99 ${f(t.p50)} / ${f(t.p99)} ms\n`,
          )
          .join("")
      : ""),
);
