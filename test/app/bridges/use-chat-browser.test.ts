import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Hono } from "hono";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ScriptedModel } from "../../../src/testing/index.js";
import { chromiumAvailable, DESKTOP, launchChromium } from "../console/browser-kit.js";
import { recordedNotes } from "../helpers.js";
import { gateTool, startUiChatServer, type UiChatServer } from "./ui-chat-fixture.js";

// The Done-means test of the AI SDK bridge: the example useChat page (examples/bridge-use-chat), the
// real `ai` + `@ai-sdk/react` with the default transport, bundled by esbuild, in Chromium.
const PAGE = new URL("../../../examples/bridge-use-chat/", import.meta.url);

async function pageRoutes(): Promise<Hono> {
  const esbuild = await import("esbuild");
  const bundle = await esbuild.build({
    entryPoints: [fileURLToPath(new URL("page.ts", PAGE))],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.text;
  const html = await readFile(new URL("index.html", PAGE), "utf8");
  const app = new Hono();
  app.get("/usechat/", (c) => c.html(html));
  app.get("/usechat/page.js", (c) =>
    c.body(script, 200, { "content-type": "text/javascript; charset=utf-8" }),
  );
  return app;
}

describe.runIf(chromiumAvailable("the useChat browser test"))(
  "useChat (ai + @ai-sdk/react) against the service in Chromium",
  () => {
    const gate = gateTool();
    const { notes, writeNote } = recordedNotes();
    let server: UiChatServer;
    let browser: Browser;
    let context: BrowserContext;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      const page = await pageRoutes();
      server = await startUiChatServer(
        [
          {
            name: "approver",
            model: new ScriptedModel([
              {
                text: "Let me note that.",
                toolCalls: [{ id: "w1", name: "write_note", input: { text: "hello" } }],
              },
              { text: "Noted hello." },
            ]),
            toolkit: [writeNote],
          },
          {
            name: "waiter",
            model: new ScriptedModel([
              { text: "Part one.", toolCalls: [{ id: "g1", name: "wait_for_gate", input: {} }] },
              { text: "Part two." },
            ]),
            toolkit: [gate.tool],
          },
          {
            name: "stopper",
            model: new ScriptedModel([
              { text: "Working.", toolCalls: [{ id: "g2", name: "wait_for_gate", input: {} }] },
            ]),
            toolkit: [gate.tool],
          },
        ],
        () => [page],
      );
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    afterEach(async () => {
      await context?.close();
      expect(pageErrors.splice(0)).toEqual([]);
    });

    async function open(agent: string): Promise<Page> {
      context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
      await context.addInitScript(() => localStorage.setItem("agentscope.token", "alice-token"));
      const page = await context.newPage();
      page.on("pageerror", (error) => pageErrors.push(error.message));
      await page.goto(`${server.base}/usechat/?agent=${agent}`);
      await page.waitForSelector("#composer");
      return page;
    }
    async function send(page: Page, text: string) {
      await page.fill("#input", text);
      await page.click("#send");
    }
    const chatIdOf = (page: Page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get("chat")!;
    const assistantTexts = (page: Page) =>
      page.locator('.message[data-role="assistant"] .text').allTextContents();

    it("streams the text, shows the tool call, and runs it once approved in the page", async () => {
      const page = await open("approver");
      await send(page, "Note hello");
      const tool = page.locator('.tool[data-tool="write_note"]');
      await tool.locator(".approve").waitFor();
      expect(await tool.getAttribute("data-state")).toBe("approval-requested");
      expect(await assistantTexts(page)).toEqual(["Let me note that."]);
      expect(notes).toEqual([]); // nothing runs before the answer
      await tool.locator(".approve").click();
      await page.locator('.text:text-is("Noted hello.")').waitFor();
      await page.locator('#status[data-status="ready"]').waitFor();
      expect(await tool.getAttribute("data-state")).toBe("output-available");
      expect(await tool.locator(".output").textContent()).toBe("wrote hello");
      expect(await assistantTexts(page)).toEqual(["Let me note that.", "Noted hello."]);
      expect(await page.locator('.message[data-role="assistant"]').count()).toBe(1);
      expect(notes).toEqual(["hello"]);
      const stored = (await server.runtime.messages("alice", chatIdOf(page))).at(-1);
      expect(stored?.finishedReason).toBe("completed");
    });

    it("a reload mid-reply resumes it (resume: true): no text twice, none missing", async () => {
      const page = await open("waiter");
      await send(page, "Go");
      await gate.waiting();
      await page.locator('.text:text-is("Part one.")').waitFor();
      // The text is on screen while the reply still runs: it streamed.
      expect(await page.locator("#status").getAttribute("data-status")).toBe("streaming");
      const chatId = chatIdOf(page);
      await page.reload();
      await page.waitForSelector("#composer");
      expect(chatIdOf(page)).toBe(chatId);
      await page.locator('.tool[data-tool="wait_for_gate"][data-state="input-available"]').waitFor();
      expect(await assistantTexts(page)).toEqual(["Part one."]);
      gate.open();
      await page.locator('.text:text-is("Part two.")').waitFor();
      await page.locator('#status[data-status="ready"]').waitFor();
      expect(await assistantTexts(page)).toEqual(["Part one.", "Part two."]);
      expect(await page.locator('.message[data-role="assistant"]').count()).toBe(1);
      expect(await page.locator(".tool .output").allTextContents()).toEqual(["let through"]);
      expect((await server.runtime.messages("alice", chatId)).at(-1)?.finishedReason).toBe("completed");
    });

    it("stop ends the run on the server: the session's reply says interrupted", async () => {
      const page = await open("stopper");
      await send(page, "Go");
      await gate.waiting();
      await page.locator('.text:text-is("Working.")').waitFor();
      const chatId = chatIdOf(page);
      expect((await server.runtime.status("alice", chatId)).running).toBe(true);
      await page.click("#stop");
      await page.locator('#status[data-status="ready"]').waitFor();
      await expect.poll(async () => (await server.runtime.status("alice", chatId)).running).toBe(false);
      const reply = (await server.runtime.messages("alice", chatId)).at(-1);
      expect(reply?.finishedReason).toBe("interrupted");
      // The service's own status route agrees.
      const status = await fetch(`${server.base}/v1/sessions/${chatId}/status`, {
        headers: { authorization: "Bearer alice-token" },
      });
      expect(await status.json()).toMatchObject({ sessionId: chatId, running: false });
    });
  },
);
