import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { textOf } from "../../../src/message/index.js";
import {
  chromiumAvailable,
  DESKTOP,
  expectAccessible,
  launchChromium,
  openConsole,
  PHONE,
  SHOTS,
  send,
  sessionIdOf,
} from "./browser-kit.js";
import { CLERK_PROMPT, type StudioService, startStudioService, toolRuns } from "./studio-fixture.js";

describe.runIf(chromiumAvailable("console studio tests"))("console studio in headless Chromium", () => {
  let service: StudioService;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    service = await startStudioService();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  async function open(viewport = DESKTOP): Promise<Page> {
    const opened = await openConsole(browser, service.base, { errors, viewport });
    context = opened.context;
    return opened.page;
  }

  /** A refund (tool loop with an approval), then a research question (a sub-agent behind an approval). */
  async function session(page: Page): Promise<void> {
    await send(page, "please refund order A1");
    await page.locator(".approval").waitFor();
    await page.click(".approval button.primary");
    await page.waitForSelector("body[data-phase='idle'] .msg.assistant [data-save-case]");
    await send(page, "research A1 for me");
    await page.locator(".approval").waitFor();
    await page.click(".approval button.primary");
    await page.waitForSelector(".tool[data-call] details.subrun");
    await page.waitForSelector("body[data-phase='idle']");
  }

  it("the agent inspector shows the system prompt exactly as the model received it, the tools with schemas and rules, the middleware", async () => {
    const page = await open();
    await session(page);
    // The studio's code is not part of the chat page: it loads when the studio first opens.
    const scripts = () => page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    expect((await scripts()).some((name) => name.endsWith("/console/studio.js"))).toBe(false);
    await page.click("#studio-toggle");
    const studio = page.locator("#studio");
    await studio.locator(".studio-prompt").waitFor();
    expect((await scripts()).some((name) => name.endsWith("/console/studio.js"))).toBe(true);

    const received = service.model.calls.at(-1)!.messages[0]!;
    expect(received.role).toBe("system");
    const shown = await studio.locator(".studio-prompt").textContent();
    expect(shown).toBe(textOf(received));
    expect(shown).toBe(`${CLERK_PROMPT}\n\nThe shop is open 9 to 5.`);

    const tools = studio.locator(".studio-tool");
    expect(await tools.evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.tool))).toEqual([
      "lookup_order",
      "refund",
      "researcher",
    ]);
    const refund = studio.locator('.studio-tool[data-tool="refund"]');
    await refund.locator("summary").click();
    const schema = JSON.parse((await refund.locator(".studio-json").textContent()) ?? "{}");
    expect(schema.required).toEqual(["id", "amount"]);
    expect(await refund.textContent()).toContain("asks a person");
    const lookup = studio.locator('.studio-tool[data-tool="lookup_order"]');
    expect(await lookup.textContent()).toContain("allow: lookup_order");
    const text = await studio.textContent();
    expect(text).toContain("shop-hours: systemPrompt");
    expect(text).toContain("eval-recorder: onModelCall");
    expect(text).toContain("clerk-model (scripted)");
    expect(text).toContain("ask: researcher (");
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-agent.png") });
  });

  it("the trace waterfall draws the log as nested spans: model calls with their requests, tools, the sub-agent run, the pauses; search filters it", async () => {
    const page = await open();
    await session(page);
    await send(page, "please refund order A1");
    await page.locator(".approval").waitFor();
    await page.click(".approval button.primary");
    await page.waitForSelector("body[data-phase='idle']");
    await page.click("#studio-toggle");
    const studio = page.locator("#studio");
    await studio.locator(".studio-prompt").waitFor();
    const began = await page.evaluate(() => performance.now());
    await page.click('[role="tab"][data-tab="trace"]');
    await studio.locator(".trace-row").first().waitFor();
    const tookMs = (await page.evaluate(() => performance.now())) - began;

    const { lastEventId } = await (
      await fetch(`${service.base}/v1/sessions/${encodeURIComponent(sessionIdOf(page))}/status`)
    ).json();
    await writeFile(
      join(SHOTS, "studio-trace-timing.txt"),
      `trace view of ${lastEventId} events: ${tookMs.toFixed(0)} ms from the tab click to the first bar\n`,
    );
    expect(lastEventId).toBeGreaterThan(100);

    const kinds = await studio
      .locator(".trace-row")
      .evaluateAll((rows) =>
        rows.map((r) => `${(r as HTMLElement).dataset.kind}:${(r as HTMLElement).dataset.label}`),
      );
    expect(kinds.filter((k) => k.startsWith("reply:"))).toEqual([
      "reply:clerk reply",
      "reply:clerk reply",
      "reply:researcher reply",
      "reply:clerk reply",
    ]);
    expect(kinds.filter((k) => k.startsWith("pause:"))).toHaveLength(3);
    expect(kinds).toContain("tool:researcher");
    // The sub-agent's reply nests under the researcher call.
    const depth = (selector: string) =>
      studio
        .locator(selector)
        .first()
        .evaluate((row) => (row as HTMLElement).style.getPropertyValue("--depth"));
    expect(await depth('.trace-row[data-kind="tool"][data-label="researcher"]')).toBe("1");
    expect(await depth('.trace-row[data-kind="reply"][data-label="researcher reply"]')).toBe("2");

    await studio.locator('.trace-row[data-kind="model"]').first().click();
    const payload = JSON.parse((await studio.locator(".trace-detail").textContent()) ?? "{}");
    expect(payload.request.system).toBe(`${CLERK_PROMPT}\n\nThe shop is open 9 to 5.`);
    expect(payload.request.tools).toEqual(["lookup_order", "refund", "researcher"]);
    expect(payload.toolCalls).toEqual([
      expect.objectContaining({ name: "lookup_order", input: '{"id":"A1"}' }),
    ]);
    expect(typeof payload.inputTokens).toBe("number");

    await studio.locator(".trace-search").fill("refunded $30 on A1");
    const visible = await studio
      .locator(".trace-row:not([hidden])")
      .evaluateAll((rows) =>
        rows.map((r) => `${(r as HTMLElement).dataset.kind}:${(r as HTMLElement).dataset.label}`),
      );
    expect(visible.filter((k) => k === "tool:refund")).toHaveLength(2);
    expect(visible).not.toContain("tool:lookup_order");
    expect(visible.length).toBeLessThan(kinds.length);
    await studio.locator(".trace-search").fill("");
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-trace.png") });
  });

  it("the tool playground runs a tool through the permission gate: an ask waits for your approval, the decision and output are shown", async () => {
    const page = await open();
    await send(page, "hello");
    await page.waitForSelector("body[data-phase='idle'] .msg.assistant [data-save-case]");
    await page.click("#studio-toggle");
    await page.click('[role="tab"][data-tab="tools"]');
    const studio = page.locator("#studio");
    await studio.locator("#pg-tool").waitFor();
    toolRuns.length = 0;

    await studio.locator("#pg-tool").selectOption("refund");
    await studio.locator('[data-field="id"]').fill("A2");
    await studio.locator('[data-field="amount"]').fill("5");
    await studio.locator(".pg-run").click();
    const trial = studio.locator(".pg-trial");
    await expect.poll(() => trial.getAttribute("data-behavior")).toBe("ask");
    expect(await trial.getAttribute("data-ran")).toBe("false");
    expect(await trial.textContent()).toContain("asks before refund runs");
    expect(toolRuns).toEqual([]);
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-tools-ask.png") });
    await studio.locator(".pg-approve").click();
    await expect.poll(() => trial.getAttribute("data-ran")).toBe("true");
    expect(await studio.locator(".pg-output").textContent()).toBe("refunded $5 on A2");
    expect(await trial.textContent()).toContain("you approved it");
    expect(toolRuns).toEqual([{ tool: "refund", input: { id: "A2", amount: 5 } }]);

    // Arguments the schema refuses are the service's clear error; the tool does not run.
    await studio.locator('[data-field="amount"]').fill("-1");
    await studio.locator(".pg-run").click();
    await expect
      .poll(() => studio.locator(".pg-outcome [role=alert]").textContent())
      .toContain("invalid arguments for refund");
    expect(toolRuns).toHaveLength(1);

    await studio.locator("#pg-tool").selectOption("lookup_order");
    await studio.locator('[data-field="id"]').fill("A9");
    await studio.locator(".pg-run").click();
    await expect.poll(() => trial.getAttribute("data-ran")).toBe("true");
    expect(await trial.getAttribute("data-behavior")).toBe("allow");
    expect(await studio.locator(".pg-output").textContent()).toBe("order A9: a kettle, paid $30");
    expect(await trial.textContent()).toContain("the engine allowed it");
    await page.screenshot({ path: join(SHOTS, "studio-tools.png") });

    // The playground changed nothing in the session: its messages are the one exchange.
    const id = encodeURIComponent(sessionIdOf(page));
    const { messages } = await (await fetch(`${service.base}/v1/sessions/${id}/messages`)).json();
    expect(messages).toHaveLength(2);
    const missing = await fetch(`${service.base}/v1/sessions/${id}/tools/drop_tables/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: {} }),
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain('no tool "drop_tables"');
  });

  it("the state inspector shows the stored state, the reply waiting for its approval, and a diff between two versions", async () => {
    const page = await open();
    await send(page, "hello");
    await page.waitForSelector("body[data-phase='idle'] .msg.assistant [data-save-case]");
    await page.click("#studio-toggle");
    await page.click('[role="tab"][data-tab="state"]');
    const studio = page.locator("#studio");
    await studio.locator(".state-context").waitFor();
    expect(await studio.locator(".state-context li").count()).toBe(2);
    expect(await studio.locator(".state-reply").textContent()).toBe("No reply in flight.");
    const first = await studio.locator(".state-inspector > .note").textContent();

    await send(page, "please refund order A1");
    await page.locator(".approval").waitFor();
    // The paused reply lives in the state: the inspector reads it again when the stream pauses.
    await expect.poll(() => studio.locator(".state-reply").getAttribute("data-waiting")).toBe("user_confirm");
    expect(await studio.locator('[data-part="pending calls"] .studio-json').textContent()).toContain(
      '"name": "refund"',
    );
    await page.click(".approval button.primary");
    await page.waitForSelector("body[data-phase='idle']");
    await expect.poll(() => studio.locator(".state-reply").textContent()).toBe("No reply in flight.");
    expect(await studio.locator(".state-context li").count()).toBe(4);
    expect(await studio.locator(".state-inspector > .note").textContent()).not.toBe(first);

    // Compare the first version read with the newest: the exchange is two messages added.
    await studio.locator("#state-from").selectOption("0");
    await expect.poll(() => studio.locator(".state-diff").getAttribute("data-from")).toBe("read-0");
    await studio.locator(".state-changes").waitFor();
    const changes = await studio
      .locator(".state-changes li")
      .evaluateAll((items) =>
        items.map((li) => `${(li as HTMLElement).dataset.kind} ${(li as HTMLElement).dataset.path}`),
      );
    // Without checkpoints the page says how to keep every version.
    expect(await studio.locator(".state-no-checkpoints").textContent()).toContain("docs/time-travel.md");
    expect(changes).toContain("added context[2]");
    expect(changes).toContain("added context[3]");
    expect(changes.filter((c) => c.includes("context[0]") || c.includes("context[1]"))).toEqual([]);
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-state.png") });
  });

  it("phone layout: the studio takes the screen and its tabs work by keyboard", async () => {
    const page = await open(PHONE);
    await send(page, "please refund order A1");
    await page.locator(".approval").waitFor();
    await page.click(".approval button.primary");
    await page.waitForSelector("body[data-phase='idle'] .msg.assistant [data-save-case]");
    await page.click("#studio-toggle");
    await page.locator("#studio .studio-prompt").waitFor();
    await page.focus('[role="tab"][data-tab="agent"]');
    await page.keyboard.press("ArrowRight");
    await page.locator("#studio #pg-tool").waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.locator("#studio .trace-row").first().waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.tab)).toBe("trace");
    // Left from the first page wraps to the last (cost); Home goes back to the first.
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowLeft");
    await page.locator("#studio .cost-view").waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.tab)).toBe("cost");
    await page.keyboard.press("Home");
    await page.locator("#studio .studio-prompt").waitFor();
    const box = await page.locator("#studio").boundingBox();
    expect(box?.width).toBe(PHONE.width);
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "studio-phone.png") });
  });
});
