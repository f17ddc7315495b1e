/**
 * The two SQLite drivers side by side: better-sqlite3 (native) and Node's built-in node:sqlite, each
 * in a process of its own (AGENTSCOPE_SQLITE_DRIVER picks it), through the real SQLite state store and
 * service backend on a file:
 * - store: save+load pairs per second of a 20-message state, one session, then 16 in parallel;
 * - log: events appended per second by the service backend (100 sessions, 10 events per append, its
 *   writer worker committing), and events read back per second;
 * - reads: point SELECTs per second on one connection (the drivers' own cost per statement).
 * A driver this Node cannot load is reported, not fatal. node:sqlite needs Node 22.13+; to measure
 * better-sqlite3 on that Node too, point BENCH_BETTER_SQLITE3_BINDING at a better_sqlite3.node built
 * for it. Run from the root: `node --import tsx bench/src/sqlite-drivers.ts`.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const DURATION_MS = 1500;
const here = fileURLToPath(new URL(".", import.meta.url));

interface DriverResult {
  driver: string;
  node: string;
  storeSequential?: number;
  storeParallel16?: number;
  appendsPerSecond?: number;
  readsPerSecond?: number;
  pointSelectsPerSecond?: number;
  error?: string;
}

async function measureHere(dir: string): Promise<DriverResult> {
  const { sqliteDriver } = await import("../../src/state/sqlite/sqlite-driver.js");
  const { createStateStore, emptyAgentState } = await import("../../src/state/index.js");
  const { sqliteBackend } = await import("../../src/state/sqlite/sqlite-backend.js");
  const { userMsg, assistantMsg } = await import("../../src/message/index.js");
  const { createEvent } = await import("../../src/event/index.js");
  const driver = await sqliteDriver("the bench");
  const result: DriverResult = { driver: driver.name, node: process.version };

  const store = await createStateStore(`sqlite:${join(dir, "store.db")}`);
  const conversation = (sessionId: string) => {
    const state = emptyAgentState(sessionId);
    for (let i = 0; i < 10; i++) {
      state.context.push(userMsg(`Question ${i}: ${"what about the weather tomorrow? ".repeat(4)}`));
      state.context.push(assistantMsg(`Answer ${i}: ${"it will be sunny with a light breeze. ".repeat(6)}`));
    }
    return state;
  };
  const pairsPerSecond = async (parallel: number) => {
    let pairs = 0;
    const started = performance.now();
    const deadline = started + DURATION_MS;
    await Promise.all(
      Array.from({ length: parallel }, async (_, i) => {
        const sessionId = `s${parallel}_${i}`;
        const state = conversation(sessionId);
        let version = 0;
        while (performance.now() < deadline) {
          version = (await store.save(sessionId, state, { expectedVersion: version })).version;
          if ((await store.load(sessionId))?.version !== version) throw new Error("lost a save");
          pairs += 1;
        }
      }),
    );
    return pairs / ((performance.now() - started) / 1000);
  };
  result.storeSequential = await pairsPerSecond(1);
  result.storeParallel16 = await pairsPerSecond(16);
  await store.close?.();

  const backend = await sqliteBackend(join(dir, "service.db"));
  const sessions = Array.from({ length: 100 }, (_, i) => `log${i}`);
  const events = Array.from({ length: 10 }, (_, i) =>
    createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "b", delta: `token ${i} `.repeat(4) }),
  );
  await backend.events.append("warm", events);
  let appended = 0;
  let started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    await Promise.all(sessions.map((s) => backend.events.append(s, events)));
    appended += sessions.length * events.length;
  }
  result.appendsPerSecond = appended / ((performance.now() - started) / 1000);
  let read = 0;
  started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    for (const s of sessions) read += (await backend.events.read(s, 0, 500)).length;
  }
  result.readsPerSecond = read / ((performance.now() - started) / 1000);
  await backend.close();

  const db = await driver.open(join(dir, "service.db"));
  const select = db.prepare<[string, number]>(
    "SELECT event FROM agentscope_events WHERE session_id = ? AND seq = ?",
  );
  let selects = 0;
  started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    for (let i = 0; i < 1000; i++) select.get(sessions[i % 100]!, 1 + (i % 50));
    selects += 1000;
  }
  result.pointSelectsPerSecond = selects / ((performance.now() - started) / 1000);
  db.close();
  return result;
}

async function inChild(driver: string): Promise<DriverResult> {
  const binding = process.env.BENCH_BETTER_SQLITE3_BINDING;
  const preload = binding ? ["--require", join(here, "sqlite", "better-sqlite3-binding.cjs")] : [];
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...preload, "--import", "tsx", "--no-warnings", fileURLToPath(import.meta.url), "--child"],
      { env: { ...process.env, AGENTSCOPE_SQLITE_DRIVER: driver }, timeout: 120_000 },
    );
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as DriverResult;
  } catch (error) {
    const text = `${(error as { stdout?: string }).stdout ?? ""}${(error as Error).message}`;
    const reason = /"error":"([^"]*)"/.exec(text)?.[1] ?? text.split("\n")[0];
    return { driver, node: process.version, error: reason };
  }
}

if (process.argv.includes("--child")) {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-sqlite-bench-"));
  try {
    process.stdout.write(`${JSON.stringify(await measureHere(dir))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: (error as Error).message.split("\n")[0] })}\n`);
    process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const rows: DriverResult[] = [];
  for (const driver of ["better-sqlite3", "node"]) rows.push(await inChild(driver));
  const n = (value: number | undefined) =>
    value === undefined ? "-" : Math.round(value).toLocaleString("en");
  console.log(
    `| driver (${process.version}) | store save+load/s (1) | (16 parallel) | log appends/s | log reads/s | point SELECTs/s |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    if (r.error) console.log(`| ${r.driver} | not available: ${r.error} | | | | |`);
    else
      console.log(
        `| ${r.driver} | ${n(r.storeSequential)} | ${n(r.storeParallel16)} | ${n(r.appendsPerSecond)} | ${n(r.readsPerSecond)} | ${n(r.pointSelectsPerSecond)} |`,
      );
  }
}
