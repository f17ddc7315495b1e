import type { BenchClient } from "./clients/client.js";
import type { Scenario } from "./scenarios.js";

/**
 * Runs `scenario` on two clients in alternating order (so machine load hits both alike), 3 warm-up
 * rounds then `runs` measured ones; wall and CPU (user + system) ms per run, per client.
 */
export async function alternateRuns(
  clients: [BenchClient, BenchClient],
  scenario: Scenario,
  runs: number,
): Promise<{ wall: [number[], number[]]; cpu: [number[], number[]] }> {
  const wall: [number[], number[]] = [[], []];
  const cpu: [number[], number[]] = [[], []];
  for (let round = 0; round < runs + 3; round++) {
    for (let k = 0; k < 2; k++) {
      const i = (k + round) % 2;
      const before = process.cpuUsage();
      const started = performance.now();
      await scenario.run(clients[i]!);
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(before);
      if (round < 3) continue;
      wall[i]!.push(elapsed);
      cpu[i]!.push((used.user + used.system) / 1000);
    }
  }
  return { wall, cpu };
}
