import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import supportAgent, { hasty } from "../../examples/eval-agent.js";
import { loadDataset, runEval } from "../../src/eval/index.js";

const DATASET = fileURLToPath(new URL("../../examples/eval-dataset.yaml", import.meta.url));

it("the example dataset of docs/evals.md passes on the example agent and fails on its hasty prompt", async () => {
  const cases = await loadDataset(DATASET);
  const base = await runEval({ cases, agent: supportAgent });
  expect(
    base.runs.map((r) => [r.caseId, r.pass, r.scores.filter((s) => !s.pass).map((s) => s.reason)]),
  ).toEqual([
    ["refund-kettle", true, []],
    ["refund-refused", true, []],
    ["unknown-order", true, []],
  ]);
  const head = await runEval({ cases, agent: hasty });
  expect(head.summary.passed).toBe(0);
});
