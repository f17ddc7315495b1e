/**
 * A/B of two agentscope builds in one process on the fake fetch (profile-fake-fetch.ts: no socket,
 * the same reads every time), runs alternating so machine load hits both alike:
 *   node --import tsx src/profile-ab.ts <distA> <distB> [S1|S2|S3] [paced|batched] [runs]
 * `raw` as a dist runs the raw-fetch floor instead. Prints median CPU and wall per run and B/A.
 */

import { alternateRuns } from "./alternate-runs.js";
import { agentscopeClient } from "./clients/agentscope.js";
import type { BenchClient } from "./clients/client.js";
import { rawFetchClient } from "./clients/raw-fetch.js";
import { type FakeMode, fakeFetch } from "./profile-fake-fetch.js";
import { SCENARIOS } from "./scenarios.js";
import { median } from "./stats.js";

const [dirA, dirB, scenarioId = "S1", mode = "paced", runs = "30"] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error("usage: profile-ab.ts <distA> <distB> [scenario] [mode] [runs]");
const scenario = SCENARIOS.find((s) => s.id === scenarioId);
if (!scenario) throw new Error(`no scenario ${scenarioId}`);
globalThis.fetch = fakeFetch(mode as FakeMode);
const base = "http://127.0.0.1:1/v1";
const load = (dir: string): Promise<BenchClient> =>
  dir === "raw" ? rawFetchClient(base) : agentscopeClient(base, dir);
const { wall, cpu } = await alternateRuns([await load(dirA), await load(dirB)], scenario, Number(runs));
const cpuA = median(cpu[0]!);
const cpuB = median(cpu[1]!);
console.log(
  `${scenarioId} ${mode}: A ${cpuA.toFixed(1)} ms CPU (${median(wall[0]!).toFixed(1)} wall), B ${cpuB.toFixed(1)} ms CPU (${median(wall[1]!).toFixed(1)} wall), B/A ${(cpuB / cpuA).toFixed(3)}  [${dirA} vs ${dirB}]`,
);
