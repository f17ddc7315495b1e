/**
 * One sample of the first reply in a fresh process (run by first-reply.ts): loads one client, then
 * runs the scenario twice and prints, as one JSON line, wall and CPU ms of the first run (cold: JIT
 * warm-up, first allocations) and of the second (after one warm-up reply), and the process's peak
 * RSS in MiB after both.
 * argv: <baseURL> <client> <scenario>
 */
import { loadClientFactory } from "./clients/registry.js";
import { SCENARIOS } from "./scenarios.js";

const [baseURL = "", clientName = "agentscope", scenarioId = "S1"] = process.argv.slice(2);
const scenario = SCENARIOS.find((s) => s.id === scenarioId);
if (!scenario) throw new Error(`no scenario "${scenarioId}"`);
const client = await (await loadClientFactory(clientName))(baseURL);

async function timed(): Promise<{ wall: number; cpu: number }> {
  const before = process.cpuUsage();
  const started = performance.now();
  await scenario!.run(client);
  const wall = performance.now() - started;
  const used = process.cpuUsage(before);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

const first = await timed();
const second = await timed();
const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ client: client.name, first, second, peakRssMiB })}\n`);
