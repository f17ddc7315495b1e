import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import {
  caseFromStore,
  compareReports,
  type EvalReport,
  htmlReport,
  junitXml,
  missedThresholds,
  rateDelta,
  runEval,
} from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { createStateStore } from "../../src/state/index.js";
import { notesAgentOptions, notesFactory, promptFollowingModel } from "./notes-agent.js";

const CASE = (id: string) => ({
  id,
  input: { messages: [userMsg("note what todo.txt says")] },
  confirmations: [{ tool: "write_note", confirmed: true }],
  expect: [{ type: "tool_called", tool: "read_file" }],
});

describe("runEval", () => {
  it("repeats every case, runs at most `concurrency` at a time and reports progress", async () => {
    let running = 0;
    let most = 0;
    const factory = notesFactory();
    const progress: number[] = [];
    const report = await runEval({
      cases: [CASE("a"), CASE("b"), CASE("c")],
      repeats: 3,
      concurrency: 2,
      agent: async (setup) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return factory(setup);
      },
      onProgress: (done, total) => progress.push(done / total),
    });
    expect(report.runs.map((r) => `${r.caseId}${r.repeat}`)).toEqual([
      "a0",
      "a1",
      "a2",
      "b0",
      "b1",
      "b2",
      "c0",
      "c1",
      "c2",
    ]);
    expect(most).toBe(2);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toHaveLength(9);
    expect(report.summary).toMatchObject({
      runs: 9,
      passed: 9,
      passRate: 1,
      cases: 3,
      casesPassed: 3,
      flaky: [],
    });
    expect(report.scorers).toEqual([
      { scorer: "tool_called:read_file", runs: 9, passed: 9, passRate: 1, meanValue: 1 },
    ]);
    await expect(runEval({ cases: [CASE("a")], agent: factory, repeats: 0 })).rejects.toThrow(
      "repeats must be an integer ≥ 1, got 0",
    );
    await expect(runEval({ cases: [CASE("a")], agent: factory, mode: "replay" })).rejects.toThrow(
      'case "a" has no recording to replay',
    );
    await expect(
      runEval({ cases: [{ ...CASE("a"), expect: [{ type: "nope" }] }], agent: factory }),
    ).rejects.toThrow('case "a": unknown expectation "nope"');
  });

  it("prices turn tokens into cost per run and in the summary", async () => {
    const report = await runEval({
      cases: [CASE("a")],
      agent: notesFactory(),
      prices: { inputPerMTok: 1_000_000, outputPerMTok: 0 },
    });
    expect(report.runs[0]!.costUsd).toBe(report.runs[0]!.inputTokens);
    expect(report.summary.costUsd!.values).toEqual([report.runs[0]!.inputTokens]);
  });
});

function reportOf(name: string, passes: boolean[]): EvalReport {
  const runs = passes.map((pass, i) => ({
    caseId: `case-${i}`,
    repeat: 0,
    mode: "live" as const,
    pass,
    scores: [
      {
        scorer: "s",
        value: pass ? 1 : 0,
        pass,
        reason: pass ? "ok" : 'bad <tag> & "quote"\u0007',
        weight: 1,
      },
    ],
    latencyMs: 10,
    inputTokens: 1,
    outputTokens: 1,
    iterations: 1,
    tools: [],
    finalText: "",
  }));
  const passed = passes.filter(Boolean).length;
  return {
    format: "agentscope-eval/1",
    name,
    createdAt: "2026-01-01T00:00:00.000Z",
    durationMs: 100,
    repeats: 1,
    runs,
    cases: runs.map((r) => ({
      caseId: r.caseId,
      runs: 1,
      passed: r.pass ? 1 : 0,
      passRate: r.pass ? 1 : 0,
      flaky: false,
    })),
    scorers: [
      {
        scorer: "s",
        runs: runs.length,
        passed,
        passRate: passed / runs.length,
        meanValue: passed / runs.length,
      },
    ],
    summary: {
      runs: runs.length,
      passed,
      passRate: passed / runs.length,
      cases: runs.length,
      casesPassed: passed,
      flaky: [],
      latencyMs: { min: 10, p50: 10, p95: 10, max: 10, mean: 10, values: runs.map(() => 10) },
      tokens: { min: 2, p50: 2, p95: 2, max: 2, mean: 2, values: runs.map(() => 2) },
    },
  };
}

describe("reports", () => {
  it("compareReports: deltas, a 95% interval that widens with few runs, and case changes", () => {
    const base = reportOf(
      "a",
      Array.from({ length: 100 }, (_, i) => i < 90),
    );
    const head = reportOf(
      "b",
      Array.from({ length: 100 }, (_, i) => i < 60),
    );
    const comparison = compareReports(base, head);
    expect(comparison.passRate).toMatchObject({ base: 0.9, head: 0.6, significant: true });
    expect(comparison.passRate.delta).toBeCloseTo(-0.3);
    expect(comparison.passRate.ci95[1]).toBeLessThan(0);
    expect(comparison.cases.filter((c) => c.change === "regressed").map((c) => c.caseId)).toHaveLength(30);
    const few = rateDelta(2, 3, 1, 3);
    expect(few.significant).toBe(false);
    expect(few.ci95[0]).toBeLessThan(0);
    expect(few.ci95[1]).toBeGreaterThan(0);
    expect(missedThresholds(head, { minPassRate: 0.7, maxDrop: 0.1 }, comparison)).toEqual([
      "pass rate 60% is below the minimum 70%",
      "pass rate fell 30% (from 90% to 60%), more than the allowed 10%",
    ]);
    expect(missedThresholds(base, { minPassRate: 0.9 })).toEqual([]);
  });

  it("JUnit XML and HTML escape what runs say; XML drops characters it cannot hold", () => {
    const report = reportOf("a&b", [true, false]);
    const xml = junitXml(report);
    expect(xml).toContain('<testsuites name="a&amp;b" tests="2" failures="1" errors="0" time="0.100">');
    expect(xml).toContain('message="s: bad &lt;tag&gt; &amp; &quot;quote&quot;"');
    expect(xml).not.toContain("\u0007");
    const html = htmlReport(report);
    expect(html).toContain("bad &lt;tag&gt; &amp; &quot;quote&quot;");
    expect(html).not.toMatch(/<script|<link|src="http/);
  });

  it("a session in a SQLite store records as a case that replays green", async () => {
    const dir = await mkdtemp(join(tmpdir(), "eval-sqlite-"));
    const store = await createStateStore(`sqlite:${join(dir, "state.db")}`);
    try {
      const agent = new Agent({
        ...notesAgentOptions(),
        model: promptFollowingModel(2),
        permission: { rules: ["write_note"] },
      });
      const state = agent.createState("s1");
      await agent.reply(userMsg("note what plan.txt says"), { state });
      await agent.reply(userMsg("and todo.txt?"), { state });
      await store.save("s1", state, { expectedVersion: 0 });
      const evalCase = await caseFromStore(store, "s1", { id: "two-replies" });
      expect(evalCase.input.followUps).toHaveLength(1);
      expect(evalCase.recording!.turns).toHaveLength(6);
      const replay = (setup: Parameters<ReturnType<typeof notesFactory>>[0]) =>
        new Agent({ ...notesAgentOptions(), model: setup.model(), permission: { rules: ["write_note"] } });
      const [first, second] = await Promise.all([
        (await import("../../src/eval/index.js")).runCase(evalCase, replay),
        (await import("../../src/eval/index.js")).runCase(evalCase, notesFactory()),
      ]);
      expect(first.divergence).toBeUndefined();
      expect(first.trajectory.replies).toHaveLength(2);
      // Without the allow rule the agent asks; a state records no approvals, so the call that ran is approved.
      expect(second.error).toBeUndefined();
      expect(second.divergence).toBeUndefined();
      await expect(caseFromStore(store, "nope", { id: "x" })).rejects.toThrow(
        'no session "nope" in the store',
      );
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
