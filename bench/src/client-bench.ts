/**
 * S1–S3 for every client in one process: the clients are imported and checked first, then warmed up,
 * then each measured run times every scenario for every client, the clients in a rotating order
 * (interleaved, so drift in the machine hits all of them). No GC is forced between measurements by
 * default: a forced full GC shrinks the young generation, and the next run then pays for many more
 * scavenges (measured: agentscope S1 46 → 113 ms CPU, raw 41 → 50 ms), which is not how a process
 * that keeps serving behaves. `forceGc` turns it on.
 */
import type { BenchClient } from "./clients/client.js";
import { CLIENT_MODULES, loadClientFactory } from "./clients/registry.js";
import { type MockPacing, startMock } from "./mock-process.js";
import { SCENARIOS } from "./scenarios.js";
import { type Summary, summarize } from "./stats.js";

export interface ClientResult {
  client: string;
  /** Scenario id → wall-clock timings (ms). */
  timings: Record<string, Summary>;
  /** Scenario id → CPU time of this process during the scenario (ms, user + system): steadier than wall
   * time on a loaded machine, since time spent waiting for a core is not counted. */
  cpu: Record<string, Summary>;
}

export interface ClientBenchResult {
  /** How the mock streamed (batched 64 KiB writes, or one event per write). */
  pacing: MockPacing;
  runs: number;
  warmup: number;
  results: ClientResult[];
  /** Clients that could not run, and why. */
  failed: Array<{ client: string; reason: string }>;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

export async function runClientBench(options: {
  runs: number;
  warmup: number;
  /** Client keys of clients/registry.ts (raw, agentscope, ...); all when absent. */
  only?: string[];
  scenarios?: string[];
  forceGc?: boolean;
  pacing?: MockPacing;
  log: (line: string) => void;
}): Promise<ClientBenchResult> {
  const pacing = options.pacing ?? { mode: "batched" };
  const mock = await startMock(pacing);
  try {
    const clients: BenchClient[] = [];
    const failed: ClientBenchResult["failed"] = [];
    for (const key of options.only ?? Object.keys(CLIENT_MODULES)) {
      try {
        const client = await (await loadClientFactory(key))(mock.baseURL);
        await SCENARIOS[0]!.run(client); // a first full run: checks the client assembles the right thing
        clients.push(client);
      } catch (error) {
        failed.push({ client: key, reason: (error as Error).message });
        options.log(`  ${key} cannot run: ${(error as Error).message}`);
      }
    }
    const scenarios = SCENARIOS.filter((s) => !options.scenarios || options.scenarios.includes(s.id));
    const times = new Map<string, number[]>();
    const record = (key: string, ms: number) => {
      const list = times.get(key) ?? [];
      list.push(ms);
      times.set(key, list);
    };
    for (let round = 0; round < options.warmup + options.runs; round++) {
      const measured = round >= options.warmup;
      for (const scenario of scenarios) {
        for (let k = 0; k < clients.length; k++) {
          const client = clients[(k + round) % clients.length]!;
          if (options.forceGc) gc();
          const cpuBefore = process.cpuUsage();
          const started = performance.now();
          await scenario.run(client);
          const ms = performance.now() - started;
          const cpu = process.cpuUsage(cpuBefore);
          if (!measured) continue;
          record(`${client.name}|${scenario.id}`, ms);
          record(`cpu|${client.name}|${scenario.id}`, (cpu.user + cpu.system) / 1000);
        }
      }
      options.log(
        `  ${measured ? `run ${round - options.warmup + 1}/${options.runs}` : `warm-up ${round + 1}/${options.warmup}`} done`,
      );
    }
    const results = clients.map((client) => ({
      client: client.name,
      timings: Object.fromEntries(
        scenarios.map((s) => [s.id, summarize(times.get(`${client.name}|${s.id}`) ?? [])]),
      ),
      cpu: Object.fromEntries(
        scenarios.map((s) => [s.id, summarize(times.get(`cpu|${client.name}|${s.id}`) ?? [])]),
      ),
    }));
    return { pacing, runs: options.runs, warmup: options.warmup, results, failed };
  } finally {
    mock.stop();
  }
}
