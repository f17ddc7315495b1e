import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import {
  chromiumAvailable,
  expectAccessible,
  launchChromium,
  openConsole,
  SHOTS,
  send,
  sessionIdOf,
} from "./browser-kit.js";

const TOKEN = "tok-tt-alice";

const lastUserText = (messages: Msg[]) =>
  (messages.findLast((m) => m.role === "user")?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ");

/**
 * Writes the user's text to notes.txt with the Write tool (whatever the message), then says so;
 * without `write`, only says so (no workspace: a Write would land in the test's directory).
 */
function writerModel(write: boolean): ChatModel {
  const base = new ScriptedModel([]);
  const turn = (messages: Msg[]): ScriptedTurn =>
    !write || messages.at(-1)?.content.some((b) => b.type === "tool_result")
      ? { text: `Wrote ${lastUserText(messages)}.` }
      : { toolCalls: [{ name: "Write", input: { path: "notes.txt", content: lastUserText(messages) } }] };
  return {
    name: "writer",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)]).stream(messages, opts),
  };
}

/** A served session with checkpoints on; with `dataDir`, per-session workspaces whose files they hold. */
const serve = (dataDir?: string) =>
  startServer({
    config: {
      agents: [
        dataDir
          ? { name: "writer", model: writerModel(true), tools: ["Write"], permission: { mode: "bypass" } }
          : { name: "writer", model: writerModel(false) },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: `${TOKEN}:alice`,
    workspaces: dataDir ? { dataDir } : false,
    checkpoints: {},
  });

describe.skipIf(!chromiumAvailable("console time-travel tests"))(
  "console time travel in headless Chromium",
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), "agentscope-console-tt-"));
    let server: RunningServer;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const errors: string[] = [];

    beforeAll(async () => {
      server = await serve(dataDir);
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await server?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    afterEach(async () => {
      await context?.close();
      expect(errors.splice(0)).toEqual([]);
    });

    async function open(url = server.url): Promise<Page> {
      const opened = await openConsole(browser, url, { token: TOKEN, errors });
      context = opened.context;
      return opened.page;
    }
    const notes = (sessionId: string) =>
      readFileSync(join(dataDir, "workspaces", "sessions", `s-${sessionId}`, "notes.txt"), "utf8");
    const texts = (page: Page) => page.locator("#messages article.msg .msg-body").allTextContents();
    async function turn(page: Page, text: string): Promise<void> {
      await send(page, text);
      await page.waitForSelector(`.msg.assistant >> text=Wrote ${text}.`);
      await page.waitForSelector("body[data-phase='idle']");
    }
    /** Waits until the controls are drawn for the session as it now is. */
    const settled = (page: Page) => page.locator(".msg.assistant .tt-bar").first().waitFor();

    it("goes back to a turn after a confirmation that says what is restored, restoring the files the agent wrote", async () => {
      const page = await open();
      await turn(page, "alpha");
      await turn(page, "beta");
      const sessionId = sessionIdOf(page);
      expect(notes(sessionId)).toBe("beta");
      await settled(page);

      // the last turn is where the session is: only the earlier one has "Go back to here"
      const goBack = page.getByRole("button", { name: "Go back to here" });
      expect(await goBack.count()).toBe(1);
      await goBack.click();
      const dialog = page.getByRole("dialog", { name: "Go back to here?" });
      await dialog.waitFor();
      expect(await dialog.locator(".rewind-restored").textContent()).toContain(
        "the workspace files as they were (1 file)",
      );
      expect(await dialog.locator(".rewind-kept").textContent()).toContain("emails sent");
      await page.screenshot({ path: join(SHOTS, "time-travel-confirm.png") });
      await expectAccessible(page);

      // Cancel changes nothing
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      expect(await page.locator("#messages article.msg").count()).toBe(4);
      expect(notes(sessionId)).toBe("beta");

      await goBack.click();
      await dialog.getByRole("button", { name: "Go back" }).click();
      await expect.poll(() => page.locator("#messages article.msg").count()).toBe(2);
      await expect.poll(() => page.locator("#notice").textContent()).toContain("1 files put back");
      expect(notes(sessionId)).toBe("alpha");
      // the stored conversation is the rewound one (a reload shows the same)
      await page.reload();
      await page.waitForSelector(".msg.assistant >> text=Wrote alpha.");
      expect(await page.locator("#messages article.msg").count()).toBe(2);
      await settled(page);
      await page.screenshot({ path: join(SHOTS, "time-travel-rewound.png") });
    });

    it("edits and resends a message: both versions stay, and '‹ 1 / 2 ›' switches between them intact, files included", async () => {
      const page = await open();
      await turn(page, "alpha");
      await turn(page, "beta");
      const sessionId = sessionIdOf(page);
      await settled(page);

      const second = page.locator("#messages article.msg.user").nth(1);
      await second.getByRole("button", { name: "Edit and resend this message" }).click();
      await second.getByRole("textbox", { name: "Edited message" }).fill("gamma");
      await page.screenshot({ path: join(SHOTS, "time-travel-edit.png") });
      await second.getByRole("button", { name: "Send" }).click();
      await page
        .getByRole("dialog", { name: "Edit and resend?" })
        .getByRole("button", { name: "Resend" })
        .click();
      await page.waitForSelector(".msg.assistant >> text=Wrote gamma.");
      await page.waitForSelector("body[data-phase='idle']");
      expect(notes(sessionId)).toBe("gamma");

      const versions = page.locator("#messages article.msg.user").nth(1).locator(".tt-count");
      await expect.poll(() => versions.textContent()).toBe("2 / 2");
      // the first message has one version: no switcher on it
      expect(await page.locator("#messages article.msg.user").first().locator(".tt-branches").count()).toBe(
        0,
      );
      await page.screenshot({ path: join(SHOTS, "time-travel-versions.png") });
      await expectAccessible(page);

      // version 1: the old line, intact (its messages and its file)
      await page.getByRole("button", { name: "Previous version" }).click();
      await page
        .getByRole("dialog", { name: "Switch to version 1 of 2?" })
        .getByRole("button", { name: "Switch" })
        .click();
      await expect.poll(() => versions.textContent()).toBe("1 / 2");
      expect(await texts(page)).toEqual(
        ["alpha", "Wrote alpha.", "beta", "Wrote beta."].map((text) => expect.stringContaining(text)),
      );
      expect(notes(sessionId)).toBe("beta");

      // and back to version 2, intact too
      await page.getByRole("button", { name: "Next version" }).click();
      await page
        .getByRole("dialog", { name: "Switch to version 2 of 2?" })
        .getByRole("button", { name: "Switch" })
        .click();
      await expect.poll(() => versions.textContent()).toBe("2 / 2");
      expect(await texts(page)).toEqual(
        ["alpha", "Wrote alpha.", "gamma", "Wrote gamma."].map((text) => expect.stringContaining(text)),
      );
      expect(notes(sessionId)).toBe("gamma");
    });

    it("forks from a turn: a new session with the conversation and the files as they were, the origin untouched", async () => {
      const page = await open();
      await turn(page, "alpha");
      await turn(page, "beta");
      const origin = sessionIdOf(page);
      await settled(page);

      await page
        .locator("#messages article.msg.assistant")
        .first()
        .getByRole("button", { name: "Fork from here" })
        .click();
      await expect.poll(() => sessionIdOf(page)).not.toBe(origin);
      const fork = sessionIdOf(page);
      await page.waitForSelector(".msg.assistant >> text=Wrote alpha.");
      expect(await page.locator("#messages article.msg").count()).toBe(2);
      expect(await page.locator("#title").textContent()).toContain("(fork)");
      expect(notes(fork)).toBe("alpha");
      expect(notes(origin)).toBe("beta");

      // the fork goes its own way
      await settled(page);
      await turn(page, "delta");
      expect(notes(fork)).toBe("delta");
      expect(notes(origin)).toBe("beta");
      await page.screenshot({ path: join(SHOTS, "time-travel-fork.png") });
      await expectAccessible(page);
    });

    it("without workspace files a rewind changes no file and goes without asking", async () => {
      const stateOnly = await serve();
      try {
        const page = await open(stateOnly.url);
        await turn(page, "alpha");
        await turn(page, "beta");
        await settled(page);
        await page.getByRole("button", { name: "Go back to here" }).click();
        await expect.poll(() => page.locator("#messages article.msg").count()).toBe(2);
        expect(await page.locator("dialog").count()).toBe(0);
      } finally {
        await context?.close();
        context = undefined;
        await stateOnly.close();
      }
    });
  },
);
