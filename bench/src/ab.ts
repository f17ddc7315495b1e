/**
 * A/B of two builds of agentscope in one process, alternating runs (for checking a hot-path change):
 *   node --expose-gc --import tsx src/ab.ts <distDirA> <distDirB> [S1|S2|S3] [runs] [batched|paced]
 * Copy the build aside (cp -r), change src, `npm run build`, then compare. Prints median wall and CPU.
 */

import { alternateRuns } from "./alternate-runs.js";
import { agentscopeClient } from "./clients/agentscope.js";
import { startMock } from "./mock-process.js";
import { SCENARIOS } from "./scenarios.js";
import { median } from "./stats.js";

const [dirA, dirB, scenarioId = "S1", runs = "30", mode = "batched"] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error("usage: ab.ts <distDirA> <distDirB> [scenario] [runs]");
const scenario = SCENARIOS.find((s) => s.id === scenarioId);
if (!scenario) throw new Error(`no scenario ${scenarioId}`);
const mock = await startMock({ mode: mode === "paced" ? "paced" : "batched" });
try {
  const clients = [await agentscopeClient(mock.baseURL, dirA), await agentscopeClient(mock.baseURL, dirB)];
  const { wall, cpu } = await alternateRuns([clients[0]!, clients[1]!], scenario, Number(runs));
  for (const i of [0, 1]) {
    console.log(
      `${i ? "B" : "A"} ${scenarioId} (${mode}): ${median(wall[i]!).toFixed(1)} ms wall, ${median(cpu[i]!).toFixed(1)} ms CPU (${[dirA, dirB][i]})`,
    );
  }
} finally {
  mock.stop();
}
