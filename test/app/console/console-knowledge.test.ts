import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import {
  chromiumAvailable,
  DESKTOP,
  expectAccessible,
  launchChromium,
  openConsole,
  PHONE,
  SHOTS,
} from "./browser-kit.js";

const TOKEN = "tok-kb-alice";
const DOC =
  "# Oat milk\n\nOat milk keeps seven days once opened. <img src=x onerror=window.__pwned=1>\n\n## Storage\n\nKeep it in the fridge.\n";

const serve = (knowledge: boolean) =>
  startServer({
    config: {
      agents: [{ name: "helper", model: new ScriptedModel([{ text: "Hi." }]) }],
      ...(knowledge ? { knowledge: { embedding: "hash" as const } } : {}),
    },
    store: "memory:",
    port: 0,
    tokensEnv: `${TOKEN}:alice`,
    workspaces: false,
  });

describe.runIf(chromiumAvailable("console knowledge tests"))(
  "console Knowledge panel in headless Chromium",
  () => {
    let withKnowledge: RunningServer;
    let without: RunningServer;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const errors: string[] = [];

    beforeAll(async () => {
      withKnowledge = await serve(true);
      without = await serve(false);
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await withKnowledge?.close();
      await without?.close();
    });

    afterEach(async () => {
      await context?.close();
      context = undefined;
      expect(errors.splice(0)).toEqual([]);
    });

    async function open(server: RunningServer, viewport = DESKTOP): Promise<Page> {
      const opened = await openConsole(browser, server.url, { token: TOKEN, viewport, errors });
      context = opened.context;
      await opened.page.click("#knowledge-toggle");
      return opened.page;
    }

    it("creates a base, uploads a document with its indexing progress, lists it and searches it", async () => {
      const page = await open(withKnowledge);
      const panel = page.locator("#knowledge");
      expect(await page.locator("#knowledge-toggle").getAttribute("aria-expanded")).toBe("true");
      await expect.poll(() => panel.textContent()).toContain("No knowledge bases yet");

      // A bad name is the service's clear error, shown in the panel.
      await page.fill("#kb-new-name", "handbook");
      await page.click(".kb-create button");
      await panel.locator('li[data-base="handbook"]').waitFor();
      expect(await panel.locator(".kb-base h3").textContent()).toBe("handbook");

      await panel.locator('input[type="file"]').setInputFiles({
        name: "oat.md",
        mimeType: "text/markdown",
        buffer: Buffer.from(DOC),
      });
      const job = panel.locator('.kb-jobs li[data-file="oat.md"]');
      await panel.locator('.kb-jobs li[data-status="done"]').waitFor();
      expect(await job.textContent()).toMatch(/^oat\.md: done: [1-9]\d* chunks$/);
      await panel.locator(".kb-documents li >> text=oat.md").waitFor();

      await panel.locator(".kb-search input").fill("how long does oat milk keep");
      await panel.locator(".kb-search button").click();
      const hit = panel.locator(".kb-hit").first();
      await hit.waitFor();
      expect(await hit.locator(".kb-citation").textContent()).toContain("oat.md");
      expect(await panel.locator(".kb-hits").textContent()).toContain("Oat milk keeps seven days");
      // A document's markup is text in the results, never elements.
      expect(await panel.locator(".kb-hits").textContent()).toContain("<img src=x");
      expect(await panel.locator("img").count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      await page.screenshot({ path: join(SHOTS, "knowledge-desktop.png") });
      await expectAccessible(page);
    });

    it("shows the same panel at phone width, with the bases already made", async () => {
      const page = await open(withKnowledge, PHONE);
      const panel = page.locator("#knowledge");
      await panel.locator('li[data-base="handbook"]').waitFor();
      await panel.locator(".kb-documents li >> text=oat.md").waitFor();
      await page.screenshot({ path: join(SHOTS, "knowledge-phone.png") });
      await page.click("#knowledge-close");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("knowledge-toggle");
      expect(await panel.isHidden()).toBe(true);
    });

    it("refuses a base name the service does not take, and says so", async () => {
      const page = await open(withKnowledge);
      const panel = page.locator("#knowledge");
      await panel.locator('li[data-base="handbook"]').waitFor();
      // The field's pattern is only a hint: the service's answer is what the panel shows.
      await page.evaluate(() => document.getElementById("kb-new-name")?.removeAttribute("pattern"));
      await page.fill("#kb-new-name", "no spaces/allowed");
      await page.click(".kb-create button");
      await expect.poll(() => panel.locator(".kb-create .error").textContent()).toMatch(/name/);
    });

    it("says the server keeps no knowledge bases when the routes are not there", async () => {
      const page = await open(without);
      await expect
        .poll(() => page.locator("#knowledge").textContent())
        .toContain("No knowledge bases on this server: add `knowledge` to the service config");
    });
  },
);
