/**
 * How long `agentscope eval` takes on 100 recorded cases of the scripted model: each case is a
 * support session (a lookup, a refund a person approves, an answer: 3 model calls, 2 tool calls)
 * recorded live once, then the whole dataset replayed and scored as the CLI does (follows_recording
 * plus four deterministic scorers), and the reports written. Prints the median of the runs, in ms.
 *
 *   node --import tsx bench/src/eval-100.ts [runs=5] [concurrency=4]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import supportAgent from "../../examples/eval-agent.js";
import {
  caseFromRun,
  type EvalCase,
  followsRecording,
  noDeniedCall,
  runCase,
  runEval,
  textContains,
  toolCalled,
  trajectoryMatches,
  writeReports,
} from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { fmt, median } from "./stats.js";

const runs = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 4);
const ids = ["A1", "B2", "C3"];

const cases: EvalCase[] = [];
for (let i = 0; i < 100; i++) {
  const draft: EvalCase = {
    id: `case-${i}`,
    input: { messages: [userMsg(`Please refund order ${ids[i % ids.length]} (ticket ${i}).`)] },
    confirmations: [{ tool: "refund", confirmed: true }],
  };
  cases.push(caseFromRun(draft, await runCase(draft, supportAgent, { mode: "live" })));
}
const scorers = [
  followsRecording(),
  trajectoryMatches(["lookup_order", "refund"]),
  toolCalled("refund"),
  noDeniedCall(),
  textContains("refunded"),
];

const out = mkdtempSync(join(tmpdir(), "agentscope-eval-bench-"));
const times: number[] = [];
const reportTimes: number[] = [];
let passed = 0;
for (let run = 0; run < runs + 1; run++) {
  const started = performance.now();
  const report = await runEval({
    name: "bench",
    cases,
    agent: supportAgent,
    scorers,
    concurrency,
    mode: "replay",
  });
  const evaluated = performance.now();
  await writeReports(report, out);
  const done = performance.now();
  if (run === 0) continue; // warm-up
  times.push(evaluated - started);
  reportTimes.push(done - evaluated);
  passed = report.summary.passed;
}
rmSync(out, { recursive: true, force: true });
process.stdout.write(
  `eval of 100 replayed cases (concurrency ${concurrency}, ${passed}/100 passed): median ${fmt(median(times))} ms to run and score, ${fmt(median(reportTimes))} ms to write the reports (min ${fmt(Math.min(...times))} ms, ${runs} runs)\n`,
);
