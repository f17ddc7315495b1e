import { mkdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../src/app/cli/eval-command.js";
import { caseFromRun, type EvalCase, type EvalReport, runCase, saveDataset } from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { chromiumAvailable, launchChromium } from "../app/console/browser-kit.js";
import { textSink } from "../support/text-sink.js";
import { notesFactory } from "./notes-agent.js";

const AGENT = join(import.meta.dirname, "fixtures", "notes-eval-agent.ts");
const SHOTS = join(process.cwd(), "test-output", "eval");
let dir: string;
let dataset: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eval-cli-"));
  const todo: EvalCase = {
    id: "todo",
    description: "reads todo.txt and notes it",
    input: { messages: [userMsg("note what todo.txt says")] },
    confirmations: [{ tool: "write_note", confirmed: true }],
  };
  const recorded = caseFromRun(todo, await runCase(todo, notesFactory(), { mode: "live" }));
  const plan: EvalCase = {
    id: "plan",
    input: { messages: [userMsg("note what plan.txt says")] },
    confirmations: [{ confirmed: true }],
    expect: [
      { type: "tool_called", tool: "read_file", args: { path: "plan.txt" } },
      { type: "text_contains", text: "ship evals" },
      { type: "no_denied_call" },
    ],
  };
  const refused: EvalCase = {
    id: "refused",
    input: { messages: [userMsg("note what todo.txt says")] },
    confirmations: [{ tool: "write_note", confirmed: false, reason: "not now" }],
    expect: [{ type: "no_denied_call" }, { type: "trajectory", sequence: ["read_file", "**"] }],
  };
  dataset = join(dir, "notes.yaml");
  await saveDataset(dataset, [recorded, plan, refused]);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const out = textSink();
  const code = await evalCommand(args, { out });
  return { code, text: out.text };
}

describe("agentscope eval", () => {
  it("runs the dataset, prints the failures, writes the reports and exits 1 below the threshold", async () => {
    const out = join(dir, "base");
    const { code, text } = await run([dataset, "--agent", AGENT, "--out", out, "--name", "base"]);
    expect(text).toContain("eval base: 2/3 runs passed (67%), 2/3 cases, 0 flaky");
    expect(text).toContain("✗ refused: no_denied_call: denied: write_note");
    expect(text).toContain("threshold missed: pass rate 66.7% is below the minimum 100%");
    expect(code).toBe(1);
    expect(
      (await run([dataset, "--agent", AGENT, "--out", out, "--name", "base", "--min-pass-rate", "0.6"])).code,
    ).toBe(0);
    const report = JSON.parse(await readFile(join(out, "result.json"), "utf8")) as EvalReport;
    expect(report.runs.map((r) => [r.caseId, r.mode, r.pass])).toEqual([
      ["todo", "replay", true],
      ["plan", "live", true],
      ["refused", "live", false],
    ]);
  });

  it("--compare after a prompt change: the regression, the deltas and --max-drop", async () => {
    const base = join(dir, "base", "result.json");
    const { code, text } = await run([
      dataset,
      "--agent",
      `${AGENT}#search`,
      "--out",
      join(dir, "search"),
      "--name",
      "search",
      "--compare",
      base,
      "--min-pass-rate",
      "0",
      "--max-drop",
      "0.1",
    ]);
    expect(text).toContain("✗ todo: turn 1: the system prompt differs");
    expect(text).toContain("compared with base: pass rate 67% → 0% (-66.7 pts");
    expect(text).toContain("  - todo regressed");
    expect(text).toContain(
      "threshold missed: pass rate fell 66.7% (from 66.7% to 0%), more than the allowed 10%",
    );
    expect(code).toBe(1);
    const live = await run([
      dataset,
      "--agent",
      `${AGENT}#search`,
      "--out",
      join(dir, "live"),
      "--mode",
      "live",
      "--ignore",
      "system",
      "--min-pass-rate",
      "0",
    ]);
    expect(live.text).toContain(
      '✗ todo: turn 1: the agent called search({"query":"todo"}); the recording called read_file({"path":"todo.txt"})',
    );
  });

  it("repeats find the flaky case; bad options and files are one clear line", async () => {
    const { text } = await run([
      dataset,
      "--agent",
      `${AGENT}#flaky`,
      "--repeat",
      "4",
      "--concurrency",
      "1",
      "--out",
      join(dir, "flaky"),
      "--name",
      "flaky",
      "--min-pass-rate",
      "0",
      "--fail-on-flaky",
    ]);
    expect(text).toMatch(/\d+\/12 runs passed/);
    expect(text).toContain("threshold missed: flaky cases: todo, plan");
    await expect(run([dataset])).rejects.toThrow("eval needs --agent <module>");
    await expect(run([dataset, "--agent", AGENT, "--repeat", "0"])).rejects.toThrow(
      '--repeat: "0" is not a whole number ≥ 1',
    );
    await expect(run([dataset, "--agent", AGENT, "--ignore", "prompt"])).rejects.toThrow(
      /"prompt" is not a request part/,
    );
    await expect(run([dataset, "--agent", `${AGENT}#nope`])).rejects.toThrow(
      /has no export "nope" that is a function; it exports default, flaky, search/,
    );
    await expect(run([join(dir, "missing.yaml"), "--agent", AGENT])).rejects.toThrow(/cannot read dataset/);
    await expect(run([dataset, "--agent", AGENT, "--compare", dataset])).rejects.toThrow(
      /cannot read eval result .*notes\.yaml/,
    );
    expect((await run(["--help"])).text).toContain("Usage: agentscope eval");
  });
});

describe.runIf(chromiumAvailable("eval report browser test"))("the reports in a browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(() => browser?.close());

  it("the HTML report shows its charts, the flaky case, each failure's trajectory diff and the comparison", async () => {
    const base = join(dir, "shot-base");
    await run([dataset, "--agent", AGENT, "--out", base, "--name", "base", "--min-pass-rate", "0"]);
    // Live, the flaky agent searches every other run: failures with a trajectory diff.
    const flags = [
      "--repeat",
      "4",
      "--concurrency",
      "1",
      "--mode",
      "live",
      "--ignore",
      "system",
      "--min-pass-rate",
      "0",
    ];
    const compare = ["--compare", join(base, "result.json")];
    await run([
      dataset,
      "--agent",
      `${AGENT}#flaky`,
      "--out",
      join(dir, "shot"),
      "--name",
      "flaky",
      ...flags,
      ...compare,
    ]);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(join(dir, "shot", "report.html")).href);
    const charts = await page.locator("figure svg").evaluateAll((svgs) =>
      svgs.map((svg) => ({
        label: svg.getAttribute("aria-label"),
        shapes: svg.querySelectorAll("rect").length,
        width: svg.getBoundingClientRect().width,
      })),
    );
    expect(charts.map((c) => c.label)).toEqual([
      "Pass rate per scorer",
      "Pass rate per case",
      "Latency per run",
      "Tokens per run",
      "Pass rate per scorer, A and B",
    ]);
    for (const chart of charts) {
      expect(chart.shapes).toBeGreaterThan(0);
      expect(chart.width).toBeGreaterThan(200);
    }
    await expect(page.locator("text=plan: 2/4 passed").count()).resolves.toBe(1);
    const diff = page.locator('section.failure[data-case="todo"]').first();
    await expect(diff.locator(".diff > div:nth-child(1) li.off").textContent()).resolves.toBe("read_file");
    await expect(diff.locator(".diff > div:nth-child(2) li.off").textContent()).resolves.toBe("search");
    await expect(page.locator("h2", { hasText: "Comparison" }).count()).resolves.toBe(1);
    await page.screenshot({ path: join(SHOTS, "report.png"), fullPage: true });
    expect(errors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith("file:"))).toEqual([]);
  }, 60_000);

  it("junit.xml parses as XML with the JUnit elements and attributes CI reads", async () => {
    const xml = await readFile(join(dir, "shot", "junit.xml"), "utf8");
    const page = await browser.newPage();
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, "application/xml");
      if (doc.querySelector("parsererror")) return { error: doc.querySelector("parsererror")!.textContent };
      const root = doc.documentElement;
      const attrs = (el: Element) => Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]));
      return {
        root: root.tagName,
        rootAttrs: attrs(root),
        suites: [...root.children].map((suite) => ({
          tag: suite.tagName,
          attrs: attrs(suite),
          cases: [...suite.children].map((c) => ({
            tag: c.tagName,
            attrs: attrs(c),
            children: [...c.children].map((child) => ({ tag: child.tagName, attrs: attrs(child) })),
          })),
        })),
      };
    }, xml);
    expect(parsed).not.toHaveProperty("error");
    const { root, rootAttrs, suites } = parsed as Exclude<typeof parsed, { error: unknown }>;
    expect(root).toBe("testsuites");
    expect(suites).toHaveLength(1);
    const suite = suites[0]!;
    expect(suite.tag).toBe("testsuite");
    for (const key of ["name", "tests", "failures", "errors", "time", "timestamp"])
      expect(suite.attrs).toHaveProperty(key);
    expect(suite.attrs.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(Number(suite.attrs.tests)).toBe(12);
    expect(suite.cases).toHaveLength(12);
    expect(rootAttrs.tests).toBe("12");
    for (const c of suite.cases) {
      expect(c.tag).toBe("testcase");
      expect(c.attrs.name).toMatch(/^(todo|plan|refused) \[\d\/4\]$/);
      expect(c.attrs.classname).toBe("agentscope.eval.flaky");
      expect(Number(c.attrs.time)).toBeGreaterThanOrEqual(0);
      for (const child of c.children) expect(["failure", "error", "system-out"]).toContain(child.tag);
    }
    const failures = suite.cases.filter((c) => c.children.some((x) => x.tag === "failure"));
    expect(String(failures.length)).toBe(suite.attrs.failures);
    for (const f of failures)
      expect(f.children.find((x) => x.tag === "failure")!.attrs).toHaveProperty("message");
  });
});
