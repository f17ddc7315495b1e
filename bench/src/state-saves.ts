/**
 * State saves against session length: N sessions in a closed loop on a service backend (SQLite, Redis
 * or PostgreSQL), each reply the way a service run makes it: take the lease, load the state, four
 * checkpoints (reply start, model call, tool result, answer) and the run end (events, final save,
 * end events, lease release), ~1.1 KB of conversation per reply. Reports, per window of session
 * length, replies per second and the p50/p99 of a reply's time from its lease to its run end.
 *
 *   node --import tsx bench/src/state-saves.ts --store=sqlite --sessions=20 --replies=500 [--window=50]
 *     [--src=PATH]   the library's src to measure (default ../../src; another checkout's for "before")
 *
 * It runs the backend in this process with no model and no HTTP: what it measures is the store.
 * Standalone, never part of `npm run bench`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key!, value ?? "1"];
  }),
);
const store = args.store ?? "sqlite";
const sessions = Number(args.sessions ?? 20);
const replies = Number(args.replies ?? 500);
const window = Number(args.window ?? 50);
const src = resolve(args.src ?? new URL("../../src", import.meta.url).pathname);

// biome-ignore lint/suspicious/noExplicitAny: the library is imported from a path given at run time
type Any = any;
const load = (path: string): Promise<Any> => import(pathToFileURL(join(src, path)).href);
const { createBackend } = await load("app/server/backend/create-backend.ts");
const { createEvent } = await load("event/index.ts");
const { emptyAgentState } = await load("state/index.ts");
const { newId } = await load("message/index.ts");

const dir = mkdtempSync(join(tmpdir(), "agentscope-state-saves-"));
const urls: Record<string, string> = {
  sqlite: `sqlite:${join(dir, "state.db")}`,
  redis: "redis://127.0.0.1:6379",
  postgres: "postgres://postgres@127.0.0.1:5432/test",
};
const prefix = `bench_saves_${process.pid}_`;
const backend = await createBackend(urls[store], { prefix });

const text = (length: number, seed: number) =>
  `${`word${seed} `.repeat(Math.ceil(length / 8))}`.slice(0, length);
const delta = (replyId: string) => createEvent("TEXT_BLOCK_DELTA", { replyId, blockId: "blk", delta: "x" });

interface Done {
  reply: number;
  start: number;
  end: number;
}
const done: Done[] = [];
/** Sessions done with each reply: a window is printed once every session is past it. */
const finished: number[] = [];
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

function printWindow(to: number): void {
  const from = to % window === 0 ? to - window + 1 : to - (to % window) + 1;
  const inWindow = done.filter((d) => d.reply >= from && d.reply <= to);
  const span = Math.max(...inWindow.map((d) => d.end)) - Math.min(...inWindow.map((d) => d.start));
  const times = inWindow.map((d) => d.end - d.start).sort((a, b) => a - b);
  process.stdout.write(
    `| ${from}–${to} | ${Math.round((inWindow.length / span) * 1000)} | ${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.99).toFixed(1)} |\n`,
  );
}

async function session(index: number): Promise<void> {
  const sessionId = `bench-${index}-${newId("s")}`;
  await backend.store.save(sessionId, emptyAgentState(sessionId), { expectedVersion: 0 });
  for (let reply = 1; reply <= replies; reply++) {
    const start = performance.now();
    const lease = await backend.locks.acquire(sessionId);
    if (!lease) throw new Error(`${sessionId} is held`);
    const stored = await backend.store.load(sessionId);
    const state = stored.state;
    let version = stored.version;
    const replyId = newId("reply");
    const checkpoint = async () => {
      const result = await backend.checkpoint({
        sessionId,
        events: [delta(replyId), delta(replyId)],
        save: { state, expectedVersion: version },
        lease,
      });
      if (result.saveError) throw result.saveError;
      version = result.version;
    };
    state.context.push({
      id: newId("msg"),
      role: "user",
      name: "user",
      content: [{ type: "text", id: newId("blk"), text: text(120, reply) }],
      metadata: {},
      createdAt: new Date().toISOString(),
    });
    const msg: Any = { id: replyId, role: "assistant", name: "a", content: [], metadata: {}, createdAt: "" };
    state.context.push(msg);
    state.replyContext = { replyId, iteration: 0 };
    await checkpoint();
    const call = `call_${reply}`;
    msg.content.push({
      type: "tool_call",
      id: call,
      name: "get_weather",
      input: '{"city":"Paris"}',
      state: "finished",
    });
    await checkpoint();
    msg.content.push({
      type: "tool_result",
      id: call,
      name: "get_weather",
      output: text(600, reply),
      state: "success",
    });
    await checkpoint();
    state.replyContext.iteration = 1;
    msg.content.push({ type: "text", id: newId("blk"), text: text(300, reply) });
    await checkpoint();
    msg.finishedReason = "completed";
    delete state.replyContext;
    const end = await backend.endRun({
      sessionId,
      events: [delta(replyId)],
      save: { state, expectedVersion: version },
      endEvents: [createEvent("REPLY_END", { replyId, finishedReason: "completed" })],
      lease,
    });
    if (end.saveError) throw end.saveError;
    done.push({ reply, start, end: performance.now() });
    finished[reply] = (finished[reply] ?? 0) + 1;
    if (finished[reply] === sessions && (reply % window === 0 || reply === replies)) printWindow(reply);
  }
}

const began = performance.now();
process.stdout.write(
  `${store}, ${sessions} sessions × ${replies} replies, closed loop, src ${src}\n| replies of the session | replies/s | p50 ms | p99 ms |\n| --- | --- | --- | --- |\n`,
);
try {
  await Promise.all(Array.from({ length: sessions }, (_, i) => session(i)));
} finally {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
  await dropBenchData();
}

/** Removes what the run wrote on Redis or PostgreSQL. */
async function dropBenchData(): Promise<void> {
  if (store === "redis") {
    const { Redis } = await import("ioredis");
    const redis = new Redis(urls.redis!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  } else if (store === "postgres") {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: urls.postgres });
    await client.connect();
    const tables = ["events", "sessions", "leases", "state_patches", "state", "state_migrations"];
    await client.query(`DROP TABLE IF EXISTS ${tables.map((t) => prefix + t).join(", ")}`);
    await client.query(`DROP SEQUENCE IF EXISTS ${prefix}lease_generation`);
    await client.end();
  }
}
process.stdout.write(`${((performance.now() - began) / 1000).toFixed(1)} s\n`);
