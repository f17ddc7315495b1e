import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { demoCommand } from "../../../src/app/cli/demo-command.js";
import type { RunningServer } from "../../../src/app/server/start-server.js";
import {
  chromiumAvailable,
  DESKTOP,
  launchChromium,
  openConsole,
  PHONE,
  SHOTS,
  send,
} from "./browser-kit.js";

describe.runIf(chromiumAvailable("console demo tests"))("the demo's console has every panel filled", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentscope-console-demo-"));
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await demoCommand({
      port: 0,
      store: "memory:",
      workspace: join(dir, "demo"),
      out: new PassThrough(),
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const)
    it(`Files, Memories and Knowledge have something in them, and the reply shows its hints (${name})`, async () => {
      const opened = await openConsole(browser, server.url, { viewport, errors });
      context = opened.context;
      const { page } = opened;
      await send(page, "What is in my workspace?");
      const approval = page.locator(".approval");
      await approval.waitFor();
      expect(await approval.locator(".diff figcaption").textContent()).toContain("summary.md");
      await page.screenshot({ path: join(SHOTS, `demo-approval-${name}.png`) });
      await approval.locator("button.primary").click();
      await page.waitForSelector(".msg.assistant >> text=Done: summary.md lists every file");
      await page.waitForSelector("body[data-phase='idle']");
      await page.locator(".msg.assistant details.hints").first().waitFor();

      await page.click("#workspace-toggle");
      await page.locator('#workspace li[data-path="summary.md"]').waitFor();
      await page.click("#workspace-close");
      await page.click("#knowledge-toggle");
      await page.locator('#knowledge li[data-base="demo-handbook"]').waitFor();
      await page.locator("#knowledge .kb-documents >> text=handbook.md").waitFor();
      await page.screenshot({ path: join(SHOTS, `demo-knowledge-${name}.png`) });
      await page.click("#knowledge-close");
      if (name === "phone") await page.click("#menu");
      await page.click("#memories-toggle");
      // The fact is extracted after the reply: reopen the panel until it lists it. Each opening
      // shows "Loading…" until its request answers; read the panel once it has.
      const memories = page.locator("#memories");
      await expect
        .poll(async () => {
          await page.click("#memories-toggle");
          await page.click("#memories-toggle");
          await memories.locator("p.note", { hasText: "Loading…" }).waitFor({ state: "detached" });
          return memories.textContent();
        })
        .toContain("Tried the agentscope demo console.");
      await page.screenshot({ path: join(SHOTS, `demo-memories-${name}.png`) });
    });
});
