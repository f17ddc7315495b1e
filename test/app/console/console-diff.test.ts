import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { functionTool, type Tool } from "../../../src/tool/index.js";
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

const TOKEN = "tok-diff-alice";
const NOTES = "buy milk\ncall mum\nwater plants\n";

const lastUserText = (messages: Msg[]) =>
  (messages.findLast((m) => m.role === "user")?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ");

/** Asks for the built-in Write/Edit or a tool with a declared preview, by keyword; "Done." after a result. */
function keywordModel(): ChatModel {
  const base = new ScriptedModel([]);
  const turn = (messages: Msg[]): ScriptedTurn => {
    if (messages.at(-1)?.content.some((b) => b.type === "tool_result")) return { text: "Done." };
    const text = lastUserText(messages);
    if (text.includes("write notes"))
      return {
        toolCalls: [
          { name: "Write", input: { path: "notes.md", content: "buy oat milk\ncall mum\nwater plants\n" } },
        ],
      };
    if (text.includes("write fresh"))
      return { toolCalls: [{ name: "Write", input: { path: "fresh.md", content: "brand new\n" } }] };
    if (text.includes("edit notes"))
      return {
        toolCalls: [
          { name: "Edit", input: { path: "notes.md", oldString: "call mum", newString: "call dad" } },
        ],
      };
    if (text.includes("escape"))
      return {
        toolCalls: [
          {
            name: "Write",
            input: { path: "folder", content: "<img src=x onerror=window.__pwned=1>\n" },
          },
        ],
      };
    if (text.includes("retitle")) return { toolCalls: [{ name: "retitle", input: { title: "bread" } }] };
    if (text.includes("long"))
      return {
        text: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n"),
        toolCalls: [{ name: "Write", input: { path: "notes.md", content: "short\n" } }],
      };
    return { text: "Hi." };
  };
  return {
    name: "keyword",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)], { chunkSize: 8 }).stream(messages, opts),
  };
}

/** A tool whose arguments say nothing about files, but which declares the change it would make. */
const retitle = functionTool({
  name: "retitle",
  description: "Changes the first item of notes.md",
  input: z.object({ title: z.string() }),
  preview: ({ title }) => ({ path: "notes.md", before: "buy milk", after: `buy ${title}` }),
  execute: () => "not run in this test",
}) as Tool;

describe.runIf(chromiumAvailable("console diff tests"))("console diff previews in headless Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agentscope-console-diff-"));
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startServer({
      config: { agents: [{ name: "writer", model: keywordModel(), tools: ["Write", "Edit", retitle] }] },
      store: "memory:",
      port: 0,
      tokensEnv: `${TOKEN}:alice`,
      workspaces: { dataDir },
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  /** A console page with a session whose workspace holds notes.md. */
  async function withNotes(viewport = DESKTOP): Promise<Page> {
    const opened = await openConsole(browser, server.url, { token: TOKEN, viewport, errors });
    context = opened.context;
    const { page } = opened;
    await send(page, "hello");
    await page.waitForSelector(".msg.assistant >> text=Hi.");
    await page.waitForSelector("body[data-phase='idle']");
    const root = join(dataDir, "workspaces", "sessions", `s-${sessionIdOf(page)}`);
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "notes.md"), NOTES);
    return page;
  }

  const diffOf = async (page: Page) => {
    const diff = page.locator(".approval .diff:not([data-basis=''])[data-basis]");
    await diff.waitFor();
    return {
      basis: await diff.getAttribute("data-basis"),
      caption: await diff.locator("figcaption").textContent(),
      removed: await diff.locator(".diff-removed").allTextContents(),
      added: await diff.locator(".diff-added").allTextContents(),
      same: await diff.locator(".diff-same").allTextContents(),
    };
  };

  async function deny(page: Page): Promise<void> {
    await page.click(".approval button.danger");
    await page.waitForSelector(".msg.assistant >> text=Done.");
    await page.waitForSelector("body[data-phase='idle']");
  }

  it("diffs the built-in Write against the file on disk, and says 'new file' for a file that does not exist", async () => {
    const page = await withNotes();
    await send(page, "write notes");
    expect(await diffOf(page)).toEqual({
      basis: "file",
      caption: "notes.md: +1 −1 (against the file as it is now)",
      removed: ["- buy milk\n"],
      added: ["+ buy oat milk\n"],
      same: ["  call mum\n", "  water plants\n"],
    });
    await page.screenshot({ path: join(SHOTS, "diff-write-desktop.png") });
    await expectAccessible(page);
    await deny(page);

    await send(page, "write fresh");
    const fresh = await diffOf(page);
    expect(fresh.basis).toBe("new file");
    expect(fresh.caption).toBe("fresh.md: +1 −0 (new file)");
    expect(fresh.added).toEqual(["+ brand new\n"]);
    await deny(page);
  });

  it("diffs the built-in Edit (oldString/newString) applied to the file, with its unchanged lines as context", async () => {
    const page = await withNotes(PHONE);
    await send(page, "edit notes");
    expect(await diffOf(page)).toEqual({
      basis: "file",
      caption: "notes.md: +1 −1 (against the file as it is now)",
      removed: ["- call mum\n"],
      added: ["+ call dad\n"],
      same: ["  buy milk\n", "  water plants\n"],
    });
    await page.screenshot({ path: join(SHOTS, "diff-edit-phone.png") });
    await deny(page);
  });

  it("a path the console cannot read (a folder) falls back to the call's text, shown as text (a path leaving the workspace is denied before it could ask)", async () => {
    const page = await withNotes();
    mkdirSync(join(dataDir, "workspaces", "sessions", `s-${sessionIdOf(page)}`, "folder"));
    await send(page, "escape");
    const diff = await diffOf(page);
    expect(diff.basis).toBe("snippet");
    expect(diff.caption).toContain("the file could not be read");
    expect(diff.added).toEqual(["+ <img src=x onerror=window.__pwned=1>\n"]);
    expect(await page.locator(".approval img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await deny(page);
  });

  it("diffs a tool that declares its change (Tool.preview), though its arguments name no file", async () => {
    const page = await withNotes();
    await send(page, "retitle");
    const diff = await diffOf(page);
    expect(diff.basis).toBe("file");
    expect(diff.removed).toEqual(["- buy milk\n"]);
    expect(diff.added).toEqual(["+ buy bread\n"]);
    await deny(page);
  });

  for (const [name, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const)
    it(`keeps the call the card is about in view above the card after a long answer (${name})`, async () => {
      const page = await withNotes(viewport);
      await send(page, "long");
      await page.locator(".approval .diff").waitFor();
      const callId = await page.locator(".approval").getAttribute("data-call");
      const box = async (selector: string) => {
        const found = await page.locator(selector).boundingBox();
        if (!found) throw new Error(`${selector} is not shown`);
        return found;
      };
      await expect
        .poll(async () => {
          const call = await box(`.messages .tool[data-call="${callId}"] .tool-head`);
          const messages = await box("#messages");
          const card = await box(".approval");
          return (
            call.y >= messages.y &&
            call.y + call.height <= messages.y + messages.height &&
            call.y + call.height <= card.y
          );
        })
        .toBe(true);
      await page.screenshot({ path: join(SHOTS, `approval-layout-${name}.png`) });
      await deny(page);
    });
});
