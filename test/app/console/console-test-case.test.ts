import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type AgentFactory, loadDataset, runCase } from "../../../src/eval/index.js";
import {
  chromiumAvailable,
  expectAccessible,
  launchChromium,
  openConsole,
  SHOTS,
  send,
} from "./browser-kit.js";
import { clerkAgent, type StudioService, startStudioService, toolRuns } from "./studio-fixture.js";

/** The clerk as the eval builds it: the served agent's prompt, tools and middleware, the eval's model. */
const clerk: AgentFactory = (setup) => clerkAgent(setup.model());
/** The same clerk, but refund no longer asks (it is read-only): a change the replay must catch. */
const hastyClerk: AgentFactory = (setup) => clerkAgent(setup.model(), { refundReadOnly: true });

describe.runIf(chromiumAvailable("console test-case tests"))("console: save a reply as a test case", () => {
  let service: StudioService;
  let browser: Browser;
  let context: BrowserContext | undefined;
  let dir: string;
  const errors: string[] = [];

  beforeAll(async () => {
    service = await startStudioService();
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), "agentscope-test-case-"));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  async function download(page: Page): Promise<string> {
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.click(".test-case-dialog .primary"),
    ]);
    const path = join(dir, file.suggestedFilename());
    await file.saveAs(path);
    return path;
  }

  it("records the reply (tool loop, approval) as a case that replays green with agentscope/eval, and catches a changed agent", async () => {
    const opened = await openConsole(browser, service.base, { errors });
    context = opened.context;
    const page = opened.page;
    await send(page, "hello");
    await page.waitForSelector(".msg.assistant [data-save-case]");
    await send(page, "please refund order A1");
    await page.locator(".approval").waitFor();
    await page.click(".approval button.primary");
    await page.waitForSelector(".msg.assistant:nth-of-type(4) [data-save-case]");
    expect(toolRuns.map((r) => r.tool)).toEqual(["lookup_order", "refund"]);

    // The second reply: the first exchange becomes the case's starting state.
    await page.locator(".msg.assistant [data-save-case]").last().click();
    const dialog = page.locator(".test-case-dialog");
    await expect.poll(() => dialog.locator("[role=status]").textContent()).toMatch(/^Ready: reply-/);
    expect(await dialog.locator(".test-case-json").textContent()).toContain('"confirmations"');
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "save-test-case.png") });
    const [saved] = await loadDataset(await download(page));
    expect(saved!.input.state?.context.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(saved!.confirmations).toEqual([expect.objectContaining({ tool: "refund", confirmed: true })]);
    // evalRecorder is among the served agent's middleware: each turn pins the request as sent.
    expect(saved!.recording?.turns[0]?.request?.system).toContain("The shop is open 9 to 5.");

    const run = await runCase(saved!, clerk);
    expect(run.error).toBeUndefined();
    expect(run.divergence).toBeUndefined();
    expect(run.trajectory.turns.map((t) => t.toolCalls?.map((c) => c.name) ?? [])).toEqual([
      ["lookup_order"],
      ["refund"],
      [],
    ]);
    const hasty = await runCase(saved!, hastyClerk);
    expect(hasty.divergence).toMatchObject({ kind: "decision", expected: "ask", actual: "allow" });

    // The whole conversation: two replies, the second a follow-up; it replays green too.
    await page.check("input[name=test-case-scope][value=session]");
    await page.fill("#test-case-id", "whole-chat");
    await page.press("#test-case-id", "Enter");
    await expect.poll(() => dialog.locator("[role=status]").textContent()).toBe("Ready: whole-chat.jsonl");
    const [whole] = await loadDataset(await download(page));
    expect(whole!.id).toBe("whole-chat");
    expect(whole!.input.state).toBeUndefined();
    expect(whole!.input.followUps).toHaveLength(1);
    const wholeRun = await runCase(whole!, clerk);
    expect(wholeRun.error).toBeUndefined();
    expect(wholeRun.divergence).toBeUndefined();
  });

  it("a reply that still waits for its approval is not a case: the dialog says why", async () => {
    const opened = await openConsole(browser, service.base, { errors });
    context = opened.context;
    const page = opened.page;
    await send(page, "hello");
    await page.waitForSelector(".msg.assistant [data-save-case]");
    await send(page, "refund A1 please");
    await page.locator(".approval").waitFor();
    await page.locator(".msg.assistant [data-save-case]").first().click();
    await expect
      .poll(() => page.locator(".test-case-dialog [role=status]").textContent())
      .toMatch(/Cannot record: .*is paused \(waiting for user confirm\)/);
    expect(await page.locator(".test-case-dialog .primary").isDisabled()).toBe(true);
  });
});
