/**
 * Runs one client's scenario alone, many times, for `node --cpu-prof` (see README):
 *   node --cpu-prof --cpu-prof-dir=results/profiles --import tsx src/profile.ts agentscope S1 20
 * Only that client is imported. Prints the median wall and CPU time; the mock server runs in its own
 * process and is not profiled.
 */

import { loadClientFactory } from "./clients/registry.js";
import { startMock } from "./mock-process.js";
import { SCENARIOS } from "./scenarios.js";
import { median } from "./stats.js";

const [clientName = "agentscope", scenarioId = "S1", repeat = "20"] = process.argv.slice(2);
const mock = await startMock();
try {
  const scenario = SCENARIOS.find((s) => s.id === scenarioId);
  if (!scenario) throw new Error(`no scenario "${scenarioId}"`);
  const client = await (await loadClientFactory(clientName))(mock.baseURL);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < Number(repeat); i++) {
    const before = process.cpuUsage();
    const started = performance.now();
    await scenario.run(client);
    times.push(performance.now() - started);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  console.log(
    `${client.name} ${scenario.id}: median ${median(times).toFixed(1)} ms wall, ${median(cpu).toFixed(1)} ms CPU over ${times.length} runs`,
  );
} finally {
  mock.stop();
}
