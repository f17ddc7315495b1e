// npx tsx examples/eval-offline.ts: the eval loop of docs/evals.md, offline. It records a live run as
// a regression case, replays the dataset on the agent and on a changed prompt, compares the two and
// writes the reports (JSON, JUnit XML, HTML) into .agentscope/eval/example.

import { join } from "node:path";
import {
  caseFromRun,
  compareReports,
  type EvalCase,
  loadDataset,
  runCase,
  runEval,
  saveDataset,
  writeReports,
} from "agentscope/eval";
import { userMsg } from "agentscope/message";
import supportAgent, { hasty } from "./eval-agent.js";

const out = join(".agentscope", "eval", "example");

// 1. Record: run a case live once and keep what happened as its recording.
const chair: EvalCase = {
  id: "refund-chair",
  input: { messages: [userMsg("Refund order C3.")] },
  confirmations: [{ tool: "refund", confirmed: true }],
};
const recorded = caseFromRun(chair, await runCase(chair, supportAgent, { mode: "live" }));

// 2. A dataset: the hand-written cases plus the recorded one, saved as JSONL.
const cases = [...(await loadDataset(new URL("eval-dataset.yaml", import.meta.url).pathname)), recorded];
await saveDataset(join(out, "..", "example-dataset.jsonl"), cases);

// 3. Run it on the agent, then on the changed prompt, and compare.
const base = await runEval({ name: "base", cases, agent: supportAgent, repeats: 2 });
const head = await runEval({ name: "hasty", cases, agent: hasty, repeats: 2 });
const comparison = compareReports(base, head);
const files = await writeReports(head, out, comparison);

const rate = (r: number) => `${Math.round(r * 100)}%`;
process.stdout.write(`base: ${base.summary.passed}/${base.summary.runs} runs passed\n`);
process.stdout.write(`hasty: ${head.summary.passed}/${head.summary.runs} runs passed\n`);
for (const run of head.runs.filter((r) => !r.pass && r.repeat === 0)) {
  process.stdout.write(
    `  ✗ ${run.caseId}: ${run.divergence?.message ?? run.scores.find((s) => !s.pass)?.reason}\n`,
  );
}
process.stdout.write(
  `pass rate ${rate(comparison.passRate.base)} → ${rate(comparison.passRate.head)}; report: ${files.html}\n`,
);
