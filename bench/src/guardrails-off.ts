/**
 * Guardrails off cost nothing on the hot path: one reply streaming 10,000 text deltas from the
 * scripted model, read to its end, by three agents run interleaved: without the `guardrails` option
 * (the stages are chosen once, when the Agent is built: no guardrail code runs), with `guardrails: {}`
 * (the guarded stages with every list empty), and, for contrast, with one output guardrail that
 * passes everything. Prints the median CPU time per reply and each agent's ratio to the first.
 *
 *   node --import tsx bench/src/guardrails-off.ts [runs=15] [deltas=10000]
 */
import { Agent } from "../../src/agent/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { fmt, median } from "./stats.js";

const runs = Number(process.argv[2] ?? 15);
const deltas = Number(process.argv[3] ?? 10_000);
const text = "word ".repeat(deltas);

const agents = {
  "no option": () => new Agent({ name: "a", model: new ScriptedModel([{ text }], { chunkSize: 5 }) }),
  "guardrails: {} (all empty)": () =>
    new Agent({ name: "a", model: new ScriptedModel([{ text }], { chunkSize: 5 }), guardrails: {} }),
  "one output guardrail (on)": () =>
    new Agent({
      name: "a",
      model: new ScriptedModel([{ text }], { chunkSize: 5 }),
      guardrails: { output: [{ name: "pass", check: () => ({ action: "pass" }) }] },
    }),
};

const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(agents).map((name) => [name, []]));
for (let run = 0; run < runs + 3; run++) {
  for (const [name, make] of Object.entries(agents)) {
    const agent = make();
    let events = 0;
    const start = process.cpuUsage();
    for await (const _event of agent.replyStream(userMsg("go"))) events++;
    const used = process.cpuUsage(start);
    if (events < deltas) throw new Error(`${name}: ${events} events for ${deltas} deltas`);
    if (run >= 3) cpu[name]!.push((used.user + used.system) / 1000); // after a warm-up
  }
}
const base = median(cpu["no option"]!);
for (const [name, times] of Object.entries(cpu)) {
  console.log(
    `${name.padEnd(28)} ${fmt(median(times))} ms CPU per reply of ${deltas} deltas, ${fmt(median(times) / base)}×`,
  );
}
