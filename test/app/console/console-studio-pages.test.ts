import { copyFile, writeFile } from "node:fs/promises";
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
import { type StudioService, startStudioService } from "./studio-fixture.js";

/** Where the docs' screenshots live: `UPDATE_DOC_IMAGES=1` copies this run's there (else a run leaves the tree clean). */
const DOC_IMAGES = join(process.cwd(), "docs", "images");
const docImage = async (shot: string, name: string) => {
  if (process.env.UPDATE_DOC_IMAGES === "1") await copyFile(join(SHOTS, shot), join(DOC_IMAGES, name));
};

/** Each page of the studio's navigation and an element that shows it has drawn. */
const PAGES = [
  ["agent", ".studio-prompt"],
  ["tools", "#pg-tool"],
  ["state", ".state-versions"],
  ["trace", ".trace-row"],
  ["knowledge", ".note"],
  ["memories", ".note"],
  ["files", ".note"],
  ["evals", ".eval-facts"],
  ["decisions", ".decision"],
  ["cost", ".cost-table"],
] as const;

describe.runIf(chromiumAvailable("console studio page tests"))(
  "the studio's pages in headless Chromium",
  () => {
    let service: StudioService;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const errors: string[] = [];

    beforeAll(async () => {
      service = await startStudioService({ full: true });
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

    async function open(viewport = DESKTOP, colorScheme: "light" | "dark" = "light"): Promise<Page> {
      const opened = await openConsole(browser, service.base, { errors, viewport });
      context = opened.context;
      await opened.page.emulateMedia({ colorScheme });
      return opened.page;
    }

    /**
     * A refund (a tool loop: lookup allowed by rule, then the refund asked, its amount edited from 30
     * to 25 before approving), then a research question (a sub-agent behind an approval).
     */
    async function session(page: Page): Promise<void> {
      await send(page, "please refund order A1");
      const card = page.locator(".approval");
      await card.waitFor();
      const args = card.locator("textarea");
      await args.fill((await args.inputValue()).replace("30", "25"));
      await card.locator("button.primary").click();
      await page.waitForSelector("body[data-phase='idle'] .msg.assistant [data-save-case]");
      await send(page, "research A1 for me");
      await card.waitFor();
      await page.click(".approval button.primary");
      await page.waitForSelector(".tool[data-call] details.subrun");
      await page.waitForSelector("body[data-phase='idle']");
    }

    async function showPage(page: Page, tab: string, ready: string) {
      await page.click(`[role="tab"][data-tab="${tab}"]`);
      const body = page.locator(`#studio .studio-body[data-page="${tab}"]`);
      await body.locator(ready).first().waitFor();
      return body;
    }

    it("each page on a served session with a tool loop, a sub-agent and pauses: what it shows, the axe audit, screenshots (desktop and phone)", async () => {
      const page = await open();
      await session(page);
      const sessionId = sessionIdOf(page);
      await page.click("#studio-toggle");
      await page.locator("#studio .studio-prompt").waitFor();

      // Agent: the system prompt is what the model received.
      const agent = await showPage(page, "agent", ".studio-prompt");
      expect(await agent.locator(".studio-prompt").textContent()).toBe(
        textOf(service.model.calls.at(-1)!.messages[0]!),
      );

      // State: every checkpoint's version over time, and a diff between two of them.
      const state = await showPage(page, "state", ".state-versions");
      const { checkpoints } = await (
        await fetch(`${service.base}/v1/sessions/${encodeURIComponent(sessionId)}/checkpoints`)
      ).json();
      const listed = await state
        .locator(".state-versions li")
        .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.version));
      expect(listed).toEqual([...checkpoints.map((cp: { id: string }) => cp.id), "now"]);
      const kinds = checkpoints.map((cp: { kind: string }) => cp.kind);
      expect(kinds).toContain("start");
      expect(kinds).toContain("pause");
      expect(kinds).toContain("reply_end");
      expect(await state.locator(".state-no-checkpoints").count()).toBe(0);
      await state.locator('[data-version="cp-1"] button', { hasText: "from" }).click();
      await expect.poll(() => state.locator(".state-diff").getAttribute("data-from")).toBe("cp-1");
      await expect
        .poll(() =>
          state
            .locator(".state-changes li")
            .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.path)),
        )
        .toContain("context[0]");
      const first = await (
        await fetch(`${service.base}/v1/sessions/${encodeURIComponent(sessionId)}/state?checkpoint=cp-1`)
      ).json();
      expect(first).toMatchObject({ checkpoint: "cp-1", state: { context: [] } });
      const missing = await fetch(
        `${service.base}/v1/sessions/${encodeURIComponent(sessionId)}/state?checkpoint=cp-999`,
      );
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.message).toContain('no checkpoint "cp-999"');

      // Trace: model spans carry tokens and cost; the reply span sums them.
      const trace = await showPage(page, "trace", ".trace-row");
      await trace.locator('.trace-row[data-kind="model"]').first().click();
      const call = JSON.parse((await trace.locator(".trace-detail").textContent()) ?? "{}");
      expect(call.inputTokens).toBeGreaterThan(0);
      expect(call.cost.usd).toBeGreaterThan(0);
      expect(call.cost.priceAsOf).toBe("2026-11-01");
      await trace.locator('.trace-row[data-kind="reply"]').first().click();
      const reply = JSON.parse((await trace.locator(".trace-detail").textContent()) ?? "{}");
      expect(reply.modelCalls).toBe(3);
      expect(reply.cost.usd).toBeGreaterThan(call.cost.usd);
      expect(await trace.locator(".trace-cost").first().textContent()).toMatch(/tok · \$/);

      // Knowledge, memories, files: the chat's own panels, each saying how to turn its feature on.
      const knowledge = await showPage(page, "knowledge", ".note");
      await expect.poll(() => knowledge.textContent()).toContain("add `knowledge` to the service config");
      expect(await knowledge.textContent()).toContain("docs/rag.md");
      const memories = await showPage(page, "memories", ".note");
      await expect.poll(() => memories.textContent()).toContain("docs/memory.md");
      const files = await showPage(page, "files", ".note");
      await expect.poll(() => files.textContent()).toContain("docs/workspaces.md");

      // Evals: the session as a case (its recorded tool sequence), and how to run evals.
      const evals = await showPage(page, "evals", ".eval-facts");
      expect(await evals.locator(".eval-facts").textContent()).toContain("lookup_order → refund");
      expect(await evals.textContent()).toContain("agentscope eval");

      // Decisions: who, what, when, outcome; the edit with its diff.
      const decisions = await showPage(page, "decisions", ".decision");
      const outcomes = await decisions
        .locator(".decision")
        .evaluateAll((items) =>
          items.map((li) => `${(li as HTMLElement).dataset.outcome}:${(li as HTMLElement).dataset.tool}`),
        );
      // Newest first: the research call asked and approved, the refund asked and approved with an edit.
      expect(outcomes).toEqual(["approve:researcher", "ask:researcher", "edit:refund", "ask:refund"]);
      const edit = decisions.locator('.decision[data-outcome="edit"]');
      expect(await edit.getAttribute("data-actor")).toBe("local");
      expect(await edit.locator(".decision-diff li").getAttribute("data-path")).toBe("/amount");
      expect(await edit.locator(".decision-diff del").textContent()).toBe("30");
      expect(await edit.locator(".decision-diff ins").textContent()).toBe("25");
      expect(await edit.textContent()).toContain("refund by local via rest");
      await decisions.locator("#decision-filter").selectOption("edit");
      expect(await decisions.locator(".decision:not([hidden])").count()).toBe(1);
      await decisions.locator("#decision-filter").selectOption("");

      // Cost: per reply and the session's total (sessionCost of the stored replies).
      const cost = await showPage(page, "cost", ".cost-table");
      const { messages } = await (
        await fetch(`${service.base}/v1/sessions/${encodeURIComponent(sessionId)}/messages`)
      ).json();
      const replies = messages.filter((m: { role: string }) => m.role === "assistant");
      expect(await cost.locator("tbody tr").count()).toBe(replies.length);
      const total = replies.reduce((sum: number, m: { cost: { usd: number } }) => sum + m.cost.usd, 0);
      expect(Number(await cost.locator(".cost-total").getAttribute("data-usd"))).toBeCloseTo(total, 12);
      expect(await cost.locator(".cost-total").textContent()).toContain("Session: $");

      for (const [tab, ready] of PAGES) {
        await showPage(page, tab, ready);
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `studio-page-${tab}.png`) });
      }

      // The phone: every page again, the navigation a row above the page.
      await page.setViewportSize(PHONE);
      for (const [tab, ready] of PAGES) {
        await showPage(page, tab, ready);
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `studio-page-${tab}-phone.png`) });
      }
      expect((await page.locator("#studio").boundingBox())?.width).toBe(PHONE.width);
      for (const tab of ["decisions", "trace", "state"])
        await docImage(`studio-page-${tab}.png`, `studio-${tab}.png`);
      await docImage("studio-page-cost-phone.png", "studio-cost-phone.png");
    }, 120_000);

    it("dark mode: every page keeps the axe audit clean (contrast included); a trace of 100+ events is drawn and timed", async () => {
      const page = await open(DESKTOP, "dark");
      await session(page);
      await send(page, "please refund order A1");
      await page.locator(".approval").waitFor();
      await page.click(".approval button.primary");
      await page.waitForSelector("body[data-phase='idle']");
      expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(true);
      await page.click("#studio-toggle");
      await page.locator("#studio .studio-prompt").waitFor();
      const began = await page.evaluate(() => performance.now());
      await page.click('[role="tab"][data-tab="trace"]');
      await page.locator("#studio .trace-row").first().waitFor();
      const tookMs = (await page.evaluate(() => performance.now())) - began;
      const { lastEventId } = await (
        await fetch(`${service.base}/v1/sessions/${encodeURIComponent(sessionIdOf(page))}/status`)
      ).json();
      expect(lastEventId).toBeGreaterThan(100);
      const line = `trace view of ${lastEventId} events (${await page.locator("#studio .trace-row").count()} spans): ${tookMs.toFixed(0)} ms from the tab click to the first bar\n`;
      process.stdout.write(line);
      await writeFile(join(SHOTS, "studio-pages-trace-timing.txt"), line);
      for (const [tab, ready] of PAGES) {
        await showPage(page, tab, ready);
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, `studio-page-${tab}-dark.png`) });
      }
      await docImage("studio-page-trace-dark.png", "studio-trace-dark.png");
    }, 120_000);

    it("on a new chat the knowledge and memories pages work, the session pages say to start a chat", async () => {
      const page = await open();
      await page.click("#studio-toggle");
      await page.locator("#studio .studio-body .note").waitFor();
      expect(await page.locator("#studio .studio-body").textContent()).toContain("Start a chat");
      const knowledge = await showPage(page, "knowledge", ".note");
      await expect.poll(() => knowledge.textContent()).toContain("docs/rag.md");
      const decisions = await showPage(page, "decisions", ".note");
      expect(await decisions.textContent()).toContain("Start a chat");
    });
  },
);
