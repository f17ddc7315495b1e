import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { consoleRoutes } from "../../../src/app/console/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";

/** Page functions run in the browser; this is all of the DOM they use. */
interface PageNode {
  textContent: string | null;
}
declare const document: {
  querySelectorAll(selector: string): PageNode[];
  querySelector(selector: string): PageNode | null;
  body: { dataset: Record<string, string | undefined> };
};

const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";
const available = existsSync(CHROMIUM);
if (!available && !required) {
  process.stderr.write(
    `console browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`,
  );
}

const ANSWER = `Your note is saved. ${"It went to the notes file, next to the others. ".repeat(8)}Done.`;
const notes: string[] = [];
const writeNote = functionTool({
  name: "write_note",
  description: "Writes a note",
  input: z.object({ text: z.string() }),
  suggestRules: () => ["write_note"],
  execute: ({ text }) => {
    notes.push(text);
    return `saved "${text}"`;
  },
});
const askTurn = (text: string) => ({
  thinking: "Saving a note changes files, so this asks first.",
  text: "I'll save that note.",
  toolCalls: [{ name: "write_note", input: { text } }],
  delayMs: 5,
});

describe.skipIf(!available && !required)("web console in headless Chromium", () => {
  let runtime: ServiceRuntime;
  let close: () => Promise<void>;
  let base: string;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    runtime = new ServiceRuntime({
      backend: memoryBackend(),
      agents: [
        {
          name: "helper",
          model: new ScriptedModel([
            askTurn("buy milk"),
            { text: ANSWER, delayMs: 40 },
            askTurn("call mum"),
            { text: "Saved, and I won't ask again.", delayMs: 5 },
            { toolCalls: [{ name: "write_note", input: { text: "water plants" } }] },
            { text: "Saved without asking.", delayMs: 5 },
          ]),
          toolkit: [writeNote],
        },
      ],
    });
    const app = createApp(runtime, { mounts: [consoleRoutes()] });
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      (server as Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    };
    profile = mkdtempSync(join(tmpdir(), "agentscope-chromium-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-quic",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1200, height: 820 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => pageErrors.push(error.message));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await close?.();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const assistantTexts = () =>
    page.evaluate(() =>
      [...document.querySelectorAll(".msg.assistant .text")].map((n) => n.textContent ?? ""),
    );

  async function sendMessage(text: string): Promise<void> {
    await page.fill("#input", text);
    await page.keyboard.press("Enter");
  }

  it("streams a reply, asks before a tool, and finishes the reply after a refresh in the middle of it", async () => {
    await page.goto(base);
    await page.waitForSelector('body[data-ready="1"]');
    await sendMessage("Please note: buy milk");

    // The confirmation card: name, arguments, and the three answers.
    const card = page.locator('.tool[data-state="asking"]');
    await card.waitFor();
    expect(await card.locator(".tool-name").textContent()).toBe("write_note");
    expect(JSON.parse((await card.locator(".tool-args-body").textContent()) ?? "")).toEqual({
      text: "buy milk",
    });
    expect(await card.locator("button[data-decide]").allTextContents()).toEqual([
      "Approve",
      "Deny",
      "Always allow",
    ]);
    expect(notes).toEqual([]);
    await card.locator('button[data-decide="approve"]').click();

    // The answer streams in: part of it is on the page while the reply still runs.
    await page.waitForFunction((full) => {
      const texts = [...document.querySelectorAll(".msg.assistant .text")].map((n) => n.textContent ?? "");
      const last = texts[1] ?? "";
      return last.length > 20 && last.length < full.length && document.body.dataset.phase === "running";
    }, ANSWER);
    const sessionId = (await page.locator("li.session.current").getAttribute("data-id")) ?? "";
    expect((await runtime.status("local", sessionId)).running).toBe(true);
    await page.screenshot({ path: "/tmp/agentscope-console-streaming.png" });

    await page.reload();
    await page.waitForSelector('body[data-ready="1"]');
    await page.waitForFunction(
      () => document.body.dataset.phase === "idle" && document.querySelector(".usage"),
    );
    expect(await assistantTexts()).toEqual(["I'll save that note.", ANSWER]);
    expect(notes).toEqual(["buy milk"]);
    const done = page.locator(".tool").first();
    expect(await done.getAttribute("data-state")).toBe("success");
    expect(await done.locator(".tool-output").textContent()).toBe('saved "buy milk"');
    expect(await page.locator(".thinking summary").first().textContent()).toBe("Thought");
    await page.screenshot({ path: "/tmp/agentscope-console.png" });
  });

  it("'Always allow' answers this call and remembers the rule, so the next call runs without asking", async () => {
    await sendMessage("Note: call mum");
    const card = page.locator('.tool[data-state="asking"]');
    await card.waitFor();
    await card.locator('button[data-decide="always"]').click();
    await page.waitForFunction(() => document.body.dataset.phase === "idle");
    expect(notes).toEqual(["buy milk", "call mum"]);

    await sendMessage("Note: water plants");
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".text")].some((n) => n.textContent === "Saved without asking."),
    );
    await page.waitForFunction(() => document.body.dataset.phase === "idle");
    expect(notes).toEqual(["buy milk", "call mum", "water plants"]);
    expect(await page.locator(".tool-ask:not([hidden])").count()).toBe(0);
  });

  it("lists chats, starts a new one, and deletes one with two clicks", async () => {
    expect(await page.locator("li.session").count()).toBe(1);
    await page.click("#new-chat");
    expect(await page.locator(".msg").count()).toBe(0);
    const item = page.locator("li.session").first();
    await item.hover();
    await item.locator(".session-delete").click();
    expect(await item.locator(".session-delete").textContent()).toBe("Delete?");
    await item.locator(".session-delete").click();
    await page.waitForFunction(() => document.querySelectorAll("li.session").length === 0);
    expect((await runtime.listSessions("local")).sessions).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
