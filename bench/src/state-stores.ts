/**
 * Save+load per second for each state store backend, on the local servers: one session saved with
 * compare-and-set and loaded back, sequentially (latency-bound), and 16 sessions in parallel.
 * The state is a 20-message conversation (~6 KB of JSON). A backend whose server is down is reported, not fatal.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentState } from "../../src/state/index.js";
import { importAgentscope } from "./agentscope-dist.js";

export interface StoreResult {
  backend: string;
  /** Save+load pairs per second, one session at a time. */
  sequential?: number;
  /** Save+load pairs per second with 16 sessions in parallel. */
  parallel16?: number;
  error?: string;
}

const DURATION_MS = 1500;
const PARALLEL = 16;

export async function runStateStores(): Promise<StoreResult[]> {
  const as = await importAgentscope();
  const dir = mkdtempSync(join(tmpdir(), "agentscope-bench-"));
  const backends: Array<[string, string]> = [
    ["memory", "memory:"],
    ["file", `file:${join(dir, "sessions")}`],
    ["sqlite", `sqlite:${join(dir, "state.db")}`],
    ["redis", "redis://127.0.0.1:6379"],
    ["postgres", "postgres://postgres@127.0.0.1:5432/test"],
    ["mysql", "mysql://root@127.0.0.1:3306/test"],
  ];
  const results: StoreResult[] = [];
  try {
    for (const [backend, url] of backends) {
      try {
        const store = await as.createStateStore(url, { table: "bench_agent_states", keyPrefix: "bench:" });
        try {
          const sequential = await measure(as, store, 1);
          const parallel16 = await measure(as, store, PARALLEL);
          results.push({ backend, sequential, parallel16 });
        } finally {
          await store.close();
        }
      } catch (error) {
        results.push({ backend, error: (error as Error).message.split("\n")[0] });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

type Lib = Awaited<ReturnType<typeof importAgentscope>>;
type Store = Awaited<ReturnType<Lib["createStateStore"]>>;

function conversation(as: Lib, sessionId: string): AgentState {
  const state = as.emptyAgentState(sessionId);
  for (let i = 0; i < 10; i++) {
    state.context.push(as.userMsg(`Question ${i}: ${"what about the weather tomorrow? ".repeat(4)}`));
    state.context.push(as.assistantMsg(`Answer ${i}: ${"it will be sunny with a light breeze. ".repeat(6)}`));
  }
  return state;
}

/** Save+load pairs per second over DURATION_MS with `parallel` sessions, each its own loop. */
async function measure(as: Lib, store: Store, parallel: number): Promise<number> {
  const run = `bench_${process.pid}_${Date.now().toString(36)}_${parallel}`;
  let pairs = 0;
  const deadline = performance.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async (_, i) => {
      const sessionId = `${run}_${i}`;
      const state = conversation(as, sessionId);
      let version = 0;
      while (performance.now() < deadline) {
        version = (await store.save(sessionId, state, { expectedVersion: version })).version;
        const loaded = await store.load(sessionId);
        if (loaded?.version !== version)
          throw new Error(`loaded version ${loaded?.version}, saved ${version}`);
        pairs += 1;
      }
      await store.delete(sessionId);
    }),
  );
  return pairs / ((performance.now() - started) / 1000);
}
