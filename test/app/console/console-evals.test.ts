import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EvalReports } from "../../../src/app/server/http/eval-reports.js";
import { writeEvalRuns } from "../fixtures/eval-reports.js";
import {
  chromiumAvailable,
  DESKTOP,
  expectAccessible,
  launchChromium,
  openConsole,
  PHONE,
  SHOTS,
} from "./browser-kit.js";
import { type StudioService, startStudioService } from "./studio-fixture.js";

describe.runIf(chromiumAvailable("console eval runs tests"))("the studio's Evals page in Chromium", () => {
  let dir: string;
  let withRuns: StudioService;
  let withoutRuns: StudioService;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "console-evals-"));
    await writeEvalRuns(dir);
    withRuns = await startStudioService({ evals: new EvalReports(dir) });
    withoutRuns = await startStudioService();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await withRuns?.close();
    await withoutRuns?.close();
    await rm(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  async function evalsPage(base: string, viewport = DESKTOP): Promise<Page> {
    const opened = await openConsole(browser, base, { errors, viewport });
    context = opened.context;
    await opened.page.click("#studio-toggle");
    await opened.page.click('[role="tab"][data-tab="evals"]');
    return opened.page;
  }

  it("lists the runs the eval wrote (pass/fail, newest first) and opens a report with the failing check's message", async () => {
    const page = await evalsPage(withRuns.base);
    const body = page.locator('#studio .studio-body[data-page="evals"]');
    await body.locator(".eval-run").first().waitFor();
    const runs = await body
      .locator(".eval-run")
      .evaluateAll((items) =>
        items.map((li) => `${(li as HTMLElement).dataset.run}:${(li as HTMLElement).dataset.failed}`),
      );
    expect(runs).toEqual(["head:1", "base:0"]);
    expect(await body.locator(".eval-run").first().textContent()).toContain("head: 1 passed, 1 failed");
    await body.locator('.eval-run[data-run="head"] button').click();
    const report = body.locator('.eval-report[data-run="head"]');
    await report.waitFor();
    const cases = await report
      .locator(".eval-case")
      .evaluateAll((items) =>
        items.map((li) => `${(li as HTMLElement).dataset.case}:${(li as HTMLElement).dataset.pass}`),
      );
    expect(cases).toEqual(["reads:true", "searches:false"]);
    const failing = await report.locator('.eval-case[data-case="searches"] .eval-failure').textContent();
    expect(failing).toContain("tool_called:search");
    expect(await report.locator("h4").textContent()).toContain("1/2 runs passed");
    // Without an open session the page says how to record one.
    expect(await body.textContent()).toContain("Start a chat");
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-evals-report.png") });
    await page.setViewportSize(PHONE);
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-evals-report-phone.png") });
  });

  it("without evals in the config, the empty state names the config key and `agentscope eval --out`", async () => {
    const page = await evalsPage(withoutRuns.base);
    const empty = page.locator("#studio .eval-runs-empty");
    await empty.waitFor();
    const text = await empty.textContent();
    expect(text).toContain('evals: { reports: ".agentscope/eval" }');
    expect(text).toContain("agentscope eval");
    expect(text).toContain("--out");
    await expectAccessible(page);
  });
});
