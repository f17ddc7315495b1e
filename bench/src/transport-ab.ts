/**
 * A/B of agentscope's two transports (and the raw floors) on one scenario in one process, many
 * interleaved runs: `tsx src/transport-ab.ts <paced|batched> <S1|S2|S3> <runs>`. Prints CPU ms per run
 * (process.cpuUsage, user + system) min / median for each client.
 */
import { loadClientFactory } from "./clients/registry.js";
import { startMock } from "./mock-process.js";
import { SCENARIOS } from "./scenarios.js";

const [
  mode = "paced",
  id = "S3",
  runsArg = "15",
  clientsArg = "raw,raw-http,agentscope-fetch,agentscope-node",
] = process.argv.slice(2);
const mock = await startMock({ mode: mode === "batched" ? "batched" : "paced" });
try {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) throw new Error(`no scenario ${id}`);
  const names = clientsArg.split(",");
  const clients = await Promise.all(names.map(async (n) => (await loadClientFactory(n))(mock.baseURL)));
  const cpu = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let i = 0; i < 2; i++) for (const c of clients) await scenario.run(c);
  for (let r = 0; r < Number(runsArg); r++) {
    for (let k = 0; k < clients.length; k++) {
      const j = (k + r) % clients.length;
      const before = process.cpuUsage();
      await scenario.run(clients[j]!);
      const used = process.cpuUsage(before);
      cpu.get(names[j]!)!.push((used.user + used.system) / 1000);
    }
  }
  for (const [name, xs] of cpu) {
    xs.sort((a, b) => a - b);
    console.log(
      `${name}\tmin ${xs[0]!.toFixed(1)}\tmedian ${xs[Math.floor(xs.length / 2)]!.toFixed(1)} ms CPU`,
    );
  }
} finally {
  mock.stop();
}
