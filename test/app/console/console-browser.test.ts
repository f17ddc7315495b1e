import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ConsoleService,
  fileCalls,
  HOSTILE_SEARCH_RESULT,
  SLOW_ANSWER,
  SUB_ANSWER,
  startConsoleService,
} from "./console-fixture.js";

const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";
const available = existsSync(CHROMIUM);
if (!available && !required)
  process.stderr.write(
    `console browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`,
  );

/** Screenshots land here (CI keeps test-output/ as an artefact). */
const SHOTS = join(process.cwd(), "test-output", "console");
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

describe.skipIf(!available && !required)("web console in headless Chromium", () => {
  let service: ConsoleService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    service = await startConsoleService();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  async function open(viewport = { width: 1280, height: 860 }): Promise<Page> {
    context = await browser.newContext({ viewport, reducedMotion: "reduce" });
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(service.base);
    await page.waitForSelector("#composer");
    return page;
  }

  afterEach(async () => {
    await context?.close();
    expect(pageErrors.splice(0)).toEqual([]);
  });

  async function sendText(text: string): Promise<void> {
    await page.fill("#input", text);
    await page.press("#input", "Enter");
  }

  it("renders Markdown sanitised: headings, lists, tables, highlighted code with a copy button, only safe links", async () => {
    await open();
    await sendText("please write the todo");
    await page.waitForSelector(".approval");
    await page.click(".approval button.primary");
    await page.waitForSelector(".msg.assistant .markdown h2");
    await page.waitForSelector("body[data-phase='idle']");
    const answer = page.locator(".msg.assistant .markdown").last();
    expect(await answer.locator("table td").count()).toBe(2);
    expect(await answer.locator("li").count()).toBe(2);
    expect(await answer.locator("pre code .hljs-keyword").count()).toBeGreaterThan(0);
    expect(await answer.locator(".code-block button.copy").count()).toBe(1);
    const links = await answer.locator("a").evaluateAll((nodes) => nodes.map((a) => a.getAttribute("href")));
    expect(links).toEqual(["https://example.com/docs"]);
    expect(await answer.textContent()).toContain("[bad link](javascript:alert(1))");
    expect(await answer.locator("img").count()).toBe(0);
    expect(await answer.textContent()).toContain("<img src=x onerror=alert(1)>");
    await page.screenshot({ path: join(SHOTS, "markdown.png"), fullPage: true });
  });

  it("approves with edited arguments: focus moves to the approval, the diff preview follows the edit, the tool runs with the edited input", async () => {
    await open();
    fileCalls.length = 0;
    await sendText("edit my notes");
    const card = page.locator(".approval");
    await card.waitFor();
    expect(await page.evaluate(() => document.activeElement?.classList.contains("approval"))).toBe(true);
    await expect.poll(() => card.locator(".diff-removed").allTextContents()).toEqual(["- buy milk\n"]);
    expect(await card.locator(".diff-added").allTextContents()).toEqual(["+ buy oat milk\n"]);
    await page.screenshot({ path: join(SHOTS, "approval-diff.png") });

    const args = card.locator("textarea");
    const edited = (await args.inputValue()).replace("buy oat milk", "buy almond milk");
    await args.fill(edited);
    expect(await card.locator(".diff-added").allTextContents()).toEqual(["+ buy almond milk\n"]);
    await args.fill("{ not json");
    expect(await card.locator("button.primary").isDisabled()).toBe(true);
    expect(await card.locator(".approval-problem").textContent()).toContain("not valid JSON");
    await args.fill(edited);
    await card.locator("button.primary").click();
    await page.waitForSelector('.msg.assistant .tool[data-state="success"]');
    expect(fileCalls).toEqual([
      {
        tool: "edit_file",
        input: {
          file_path: "notes.md",
          old_string: "buy milk\ncall mum",
          new_string: "buy almond milk\ncall mum",
        },
      },
    ]);
    await page.waitForSelector("body[data-phase='idle']");
    expect(await page.locator("#announce").textContent()).toContain("finished");
    await page.screenshot({ path: join(SHOTS, "approved.png"), fullPage: true });
  });

  it("keyboard only: type, Enter sends, the approval takes focus, D denies and A approves", async () => {
    await open();
    fileCalls.length = 0;
    await page.focus("#input");
    await page.keyboard.type("write it down");
    await page.keyboard.press("Enter");
    await page.locator(".approval").waitFor();
    await page.keyboard.press("d");
    await page.waitForSelector('.tool[data-state="denied"]');
    await page.waitForSelector("body[data-phase='idle']");
    expect(fileCalls).toEqual([]);

    await page.focus("#input");
    await page.keyboard.type("write it again");
    await page.keyboard.press("Enter");
    await page.locator(".approval").waitFor();
    expect(await page.evaluate(() => document.activeElement?.classList.contains("approval"))).toBe(true);
    await page.keyboard.press("a");
    await page.waitForSelector("body[data-phase='idle']");
    expect(fileCalls.map((c) => c.tool)).toEqual(["write_file"]);
  });

  it("a sub-agent's run is shown collapsible inside the tool call that started it", async () => {
    await open();
    await sendText("research oat milk");
    // The page is idle before the reply's first event too: wait for the nested run, then for the end.
    await page.waitForSelector(".tool[data-call] details.subrun");
    await page.waitForSelector("body[data-phase='idle']");
    const nested = page.locator(".tool[data-call] details.subrun");
    expect(await nested.count()).toBe(1);
    expect(await nested.locator(":scope > summary").textContent()).toBe("Sub-agent helper/researcher");
    expect(await nested.evaluate((node) => (node as HTMLDetailsElement).open)).toBe(false);
    await nested.locator(":scope > summary").click();
    expect((await nested.locator(".subrun-body .markdown").textContent())?.trim()).toBe(SUB_ANSWER);
    await page.screenshot({ path: join(SHOTS, "nested-run.png"), fullPage: true });
    // The sub-agent's reply is not a message of its own.
    expect(await page.locator(".msg.assistant").count()).toBe(1);
  });

  it("a built-in tool run of the provider is a tool card marked with who ran it, never an approval", async () => {
    await open();
    await sendText("look up oat milk");
    await page.waitForSelector(".msg.assistant"); // the reply began (the page is idle before it, too)
    await page.waitForSelector("body[data-phase='idle']");
    const card = page.locator('.tool[data-call="srvtoolu_look"]');
    expect(await card.locator(".tool-name").textContent()).toBe("web_search");
    expect(await card.locator(".tool-by").textContent()).toBe("run by anthropic");
    expect(await card.locator(".tool-output").textContent()).toBe(HOSTILE_SEARCH_RESULT);
    // The page's markup stayed text: no element, no script-URL link, nothing ran.
    expect(await card.locator("img").count()).toBe(0);
    expect(await card.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator(".approval").count()).toBe(0);
    // The run sits before the answer, where the provider put it.
    const order = await page
      .locator(".msg.assistant")
      .last()
      .evaluate((node) => [...node.querySelectorAll(".tool, .markdown")].map((el) => el.className));
    expect(order[0]).toContain("tool");
  });

  it("attaches an image as a data block: shown in the message and stored with the user's text", async () => {
    await open();
    // A 1×1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    await page.setInputFiles("#files", { name: "dot.png", mimeType: "image/png", buffer: png });
    expect(await page.locator("#attached li").textContent()).toContain("dot.png");
    await sendText("what is in this picture");
    await page.waitForSelector(".msg.assistant"); // the reply began (the page is idle before it, too)
    await page.waitForSelector("body[data-phase='idle']");
    expect(await page.locator(".msg.user img.media").getAttribute("src")).toBe(
      `data:image/png;base64,${png.toString("base64")}`,
    );
    const sessionId = decodeURIComponent(new URL(page.url()).hash.replace("#/s/", ""));
    const stored = await service.runtime.messages("local", sessionId);
    expect(stored[0]?.content.map((b) => b.type)).toEqual(["text", "data"]);
    expect(stored[0]?.content[1]).toMatchObject({
      name: "dot.png",
      source: { type: "base64", mediaType: "image/png" },
    });
  });

  it("citations on a text block are listed under it, linked to their sources (safe URLs only)", async () => {
    const session = await service.runtime.createSession("local", { title: "cited" });
    const input = [
      {
        id: "m-cited",
        name: "user",
        role: "user",
        createdAt: new Date().toISOString(),
        metadata: {},
        content: [
          {
            type: "text",
            id: "t-cited",
            text: "As the guide says, oat milk keeps.",
            citations: [
              { url: "https://example.com/guide", title: "The guide", citedText: "oat milk keeps" },
              { url: "javascript:alert(1)", title: "Bad source" },
            ],
          },
        ],
      },
    ];
    await service.runtime.startReply("local", session.sessionId, input as never).then((run) => run.done);
    await open();
    await page.click(`li.session[data-id="${session.sessionId}"] .session-pick`);
    const list = page.locator(".msg.user .citations");
    await list.waitFor();
    expect(await list.locator("li").allTextContents()).toEqual([
      "[1] The guideoat milk keeps",
      "[2] Bad source",
    ]);
    expect(await list.locator("a").evaluateAll((nodes) => nodes.map((a) => a.getAttribute("href")))).toEqual([
      "https://example.com/guide",
    ]);
  });

  it("a reload mid-reply picks the stream up again: the answer appears once, complete", async () => {
    await open();
    await sendText("slow please");
    await page.waitForFunction(
      () => (document.querySelector(".msg.assistant .markdown")?.textContent ?? "").length > 20,
    );
    await page.reload();
    await page.waitForSelector("body[data-phase='running']");
    await page.waitForSelector("body[data-phase='idle']", { timeout: 15_000 });
    const texts = await page.locator(".msg.assistant .markdown").allTextContents();
    expect(texts.map((t) => t.trim())).toEqual([SLOW_ANSWER]);
  });

  it("sessions: search, rename and delete by keyboard; the run timeline lists model calls and tool runs with their times", async () => {
    await open();
    await sendText("edit the shopping list");
    await page.locator(".approval").waitFor();
    await page.keyboard.press("Control+Enter");
    await page.waitForSelector("body[data-phase='idle']");

    // After a reload the timeline still has the whole run (read from the event log).
    await page.reload();
    await page.waitForSelector(".msg.assistant");
    await page.click("#timeline-toggle");
    const timeline = page.locator("#timeline table");
    await expect.poll(() => timeline.locator('tr[data-event="REPLY_END"]').count()).toBe(1);
    await timeline.waitFor();
    expect(await timeline.locator('tr[data-event="MODEL_CALL_END"] td').nth(2).textContent()).toMatch(
      /\d+ in · \d+ out tokens/,
    );
    expect(await timeline.locator('tr[data-event="TOOL_RESULT_END"] td').nth(3).textContent()).toMatch(
      /\d+ ms|s$/,
    );
    await page.screenshot({ path: join(SHOTS, "timeline.png") });
    await page.click("#timeline-close");

    await page.keyboard.press("Control+k");
    await page.keyboard.type("shopping");
    const items = page.locator("#sessions li.session");
    await expect.poll(() => items.count()).toBe(1);
    await items.first().locator(".session-action").first().focus();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Control+a");
    await page.keyboard.type("Groceries");
    await page.keyboard.press("Enter");
    await page.fill("#search", "");
    await page.waitForSelector("#sessions .session-title:text('Groceries')");
    await expect.poll(() => page.locator("#title").textContent()).toBe("Groceries");

    const count = await items.count();
    const remove = page.locator("#sessions li.session.current .session-delete");
    await remove.focus();
    await page.keyboard.press("Enter");
    expect(await remove.textContent()).toBe("Delete?");
    await page.keyboard.press("Enter");
    await expect.poll(() => items.count()).toBe(count - 1);
    expect(await page.locator("#title").textContent()).toBe("New chat");
  });

  it("on a phone the sidebar is a menu, the token field is reachable, and the chat works", async () => {
    await open({ width: 390, height: 844 });
    expect(await page.locator("#sidebar").isVisible()).toBe(false);
    await page.click("#menu");
    expect(await page.locator("#sidebar").isVisible()).toBe(true);
    await page.click("#settings-toggle");
    expect(await page.locator("#token").isVisible()).toBe(true);
    await page.click("#memories-toggle");
    await expect
      .poll(() => page.locator("#memories").textContent())
      .toContain("No long-term memory on this server: add `memory: true`");
    await page.screenshot({ path: join(SHOTS, "mobile-menu.png") });
    await page.keyboard.press("Escape");
    expect(await page.locator("#sidebar").isVisible()).toBe(false);
    await sendText("hello from the phone");
    await page.waitForSelector(".msg.assistant .markdown");
    expect(await page.locator(".msg.assistant .markdown").last().textContent()).toContain(
      "You said: hello from the phone",
    );
    await page.screenshot({ path: join(SHOTS, "mobile-chat.png") });
  });

  it("passes an axe-core audit (no serious or critical violations), idle and with an approval open", async () => {
    await open();
    await sendText("edit for the audit");
    await page.locator(".approval").waitFor();
    await page.screenshot({ path: join(SHOTS, "console.png") });
    await page.evaluate(AXE);
    const audit = async () =>
      page.evaluate(async () => {
        const axe = (
          window as unknown as {
            axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
          }
        ).axe;
        const result = await axe.run();
        return result.violations
          .filter((v) => v.impact === "serious" || v.impact === "critical")
          .map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => (n as { target: unknown }).target))}`);
      });
    expect(await audit()).toEqual([]);
    await page.keyboard.press("d");
    await page.waitForSelector("body[data-phase='idle']");
    expect(await audit()).toEqual([]);
  });
});
