import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  chromiumAvailable,
  expectAccessible,
  launchChromium,
  openConsole,
  send,
  sessionIdOf,
} from "./browser-kit.js";
import {
  DESK_GREETING,
  notes,
  READER_ANSWER,
  type SubagentsService,
  startSubagentsService,
} from "./subagents-fixture.js";

/** These screenshots illustrate docs/multi-agent.md and docs/client-and-console.md. */
const IMAGES = join(process.cwd(), "docs", "images");

describe.runIf(chromiumAvailable("console sub-agent tests"))(
  "console: sub-agents and the task checklist",
  () => {
    let service: SubagentsService;
    let browser: Browser;
    let context: BrowserContext | undefined;
    const errors: string[] = [];

    beforeAll(async () => {
      service = await startSubagentsService();
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

    async function open(url = service.base): Promise<Page> {
      const opened = await openConsole(browser, url, { errors });
      context = opened.context;
      return opened.page;
    }

    async function reply(page: Page, text: string, answer: string): Promise<void> {
      await send(page, text);
      await page.waitForSelector(`.msg.assistant >> text=${answer}`);
      await page.waitForSelector("body[data-phase='idle']");
    }

    const taskRow = (page: Page, id: string) => page.locator(`#tasks .task[data-task="${id}"]`);

    /** Polls the service until the session's reply has ended (its runs are asynchronous; no timing asserted). */
    async function untilIdle(sessionId: string): Promise<void> {
      for (let i = 0; i < 200; i++) {
        const status = (await (await fetch(`${service.base}/v1/sessions/${sessionId}/status`)).json()) as {
          running?: boolean;
          lastEventId?: number;
        };
        if (!status.running && (status.lastEventId ?? 0) > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the session ${sessionId} is still running`);
    }

    it("the console's script folds tasks without carrying zod (the task schema stays on the service)", async () => {
      const script = await (await fetch(`${service.base}/console/app.js`)).text();
      expect(script.includes("task_updated")).toBe(true);
      expect(script.includes("$ZodType"), "zod is in the console bundle").toBe(false);
    });

    it("shows the task checklist live and a background sub-agent's progress until it is done, after a reload too", async () => {
      const page = await open();
      await reply(page, "plan the release", "The reader works on the changelog in the background.");

      // The checklist: task_1 handed to the reader (in progress, owner reader), task_2 waiting on it.
      await taskRow(page, "task_2").waitFor();
      expect(await page.locator("#tasks summary").textContent()).toBe("Tasks · 0 of 2 done");
      expect(await taskRow(page, "task_1").getAttribute("data-status")).toBe("in_progress");
      expect(await taskRow(page, "task_1").locator(".task-owner").textContent()).toBe("reader");
      expect(await taskRow(page, "task_1").locator(".task-status").textContent()).toBe("in progress");
      expect(await taskRow(page, "task_2").getAttribute("data-status")).toBe("pending");
      expect(await taskRow(page, "task_2").locator(".task-deps").textContent()).toBe("after task_1");

      // The spawn's card: the reader runs in the background.
      const card = page.locator('.tool[data-call] .subagent-card[data-subagent="sub_1"]');
      await card.waitFor();
      expect(await card.getAttribute("data-status")).toBe("running");
      expect(await card.locator(".subagent-name").textContent()).toBe("Sub-agent reader");
      expect(await card.locator(".subagent-bg").textContent()).toBe("background");
      expect(await card.locator(".subagent-status").textContent()).toBe("running");
      await page.screenshot({ path: join(IMAGES, "console-subagent-running.png") });
      await expectAccessible(page);

      // Its own session (`<parent>.sub_1`) ends; its outcome reaches the parent's next step as a
      // hint: the card says done with its answer, task_1 completes, and the parent starts task_2 — all live.
      service.releaseReader();
      await untilIdle(`${sessionIdOf(page)}.sub_1`);
      await reply(page, "status?", "The reader is done; I am checking the tests.");
      await page.waitForSelector('.subagent-card[data-subagent="sub_1"][data-status="completed"]');
      expect(await card.locator(".subagent-activity").textContent()).toContain(READER_ANSWER);
      await page.waitForSelector('#tasks .task[data-task="task_1"][data-status="completed"]');
      expect(await taskRow(page, "task_2").getAttribute("data-status")).toBe("in_progress");
      expect(await taskRow(page, "task_2").locator(".task-owner").textContent()).toBe("main");
      expect(await page.locator("#tasks summary").textContent()).toBe("Tasks · 1 of 2 done");
      await page.screenshot({ path: join(IMAGES, "console-tasks.png") });
      await expectAccessible(page);

      // After a reload: the list from the stored state, the card from the stored replies and the log.
      await page.reload();
      await page.waitForSelector(".msg.assistant >> text=The reader is done; I am checking the tests.");
      await page.waitForSelector('#tasks .task[data-task="task_1"][data-status="completed"]');
      expect(await taskRow(page, "task_2").getAttribute("data-status")).toBe("in_progress");
      await page.waitForSelector('.subagent-card[data-subagent="sub_1"][data-status="completed"]');
      // The reader ran in a session of its own, which the service lists under its parent.
      const readerEntry = page.locator(`#sessions .session[data-id="${sessionIdOf(page)}.sub_1"]`);
      expect(await readerEntry.getAttribute("data-parent")).toBe(sessionIdOf(page));
    });

    it("adds an exposed sub-agent's session under its parent, live; opening it streams its conversation, and its owner answers it", async () => {
      const page = await open();
      await page.selectOption("#agent", "lobby");
      // The lobby's agent_spawn(expose_to_user) waits for the desk's first answer: the entry comes
      // while the lobby's reply still runs, from SUBAGENT_EXPOSED.
      await send(page, "open the desk");
      await page.waitForFunction(() => location.hash.startsWith("#/s/"));
      const parentId = sessionIdOf(page);
      const deskId = `${parentId}.sub_1`;
      const entry = page.locator(`#sessions .session[data-id="${deskId}"]`);
      await entry.waitFor();
      expect(await entry.getAttribute("data-parent")).toBe(parentId);
      expect(await entry.getAttribute("data-depth")).toBe("1");
      expect(await entry.locator(".session-title").textContent()).toBe("desk");
      expect(await entry.locator(".session-date").textContent()).toBe("Sub-agent of open the desk");
      // Right after its parent in the list.
      const ids = await page
        .locator("#sessions .session")
        .evaluateAll((items) => items.map((i) => i.getAttribute("data-id")));
      expect(ids.indexOf(deskId)).toBe(ids.indexOf(parentId) + 1);
      const link = page.locator(".tool .subagent-card .subagent-open");
      await link.waitFor();
      expect(await link.textContent()).toBe("Open desk's conversation");

      // The link opens it while its first reply runs: the spawn's prompt, then its answer streams in.
      await link.click();
      await page.waitForFunction((id) => location.hash === `#/s/${encodeURIComponent(id)}`, deskId);
      expect(await page.locator("#title").textContent()).toBe("desk");
      expect(await entry.getAttribute("class")).toContain("current");
      await page.waitForSelector(".msg.user >> text=Take the user's requests.");
      await page.waitForSelector("body[data-phase='running']");
      service.releaseDesk();
      await page.waitForSelector(`.msg.assistant >> text=${DESK_GREETING}`);
      await page.waitForSelector("body[data-phase='idle']");

      // Its owner talks to it and answers its confirmation (the desk agent's own mode asks).
      await send(page, "write the release note");
      const approve = page.locator("#approvals button", { hasText: /approve|allow|yes/i }).first();
      await approve.waitFor();
      await approve.click();
      await page.waitForSelector(".msg.assistant >> text=Filed it.");
      expect(notes).toEqual(["ship on Friday"]);

      // The parent's spawn returned the desk's answer; after a reload the service's list has the
      // desk with its parent: the same nesting, and the call's card still links it.
      await untilIdle(parentId);
      await page.goto(`${service.base}/#/s/${encodeURIComponent(parentId)}`);
      await page.reload();
      await page.waitForSelector(".msg.assistant >> text=Talk to the desk in its own conversation.");
      await entry.waitFor();
      expect(await entry.getAttribute("data-parent")).toBe(parentId);
      expect(await entry.locator(".session-title").textContent()).toBe("desk");
      await page.waitForSelector('.tool .subagent-card[data-status="completed"] .subagent-open');
      await page.screenshot({ path: join(IMAGES, "console-subagent-session.png") });
      await expectAccessible(page);
    });
  },
);
