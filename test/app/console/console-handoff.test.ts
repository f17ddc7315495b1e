import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { chromiumAvailable, expectAccessible, launchChromium, openConsole, send } from "./browser-kit.js";

/** The screenshot illustrates docs/client-and-console.md and docs/multi-agent.md ("Handoffs"). */
const IMAGES = join(process.cwd(), "docs", "images");

describe.runIf(chromiumAvailable("console handoff tests"))("console: handoffs", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    // A service config as users write one: triage may hand off to billing (the service's `handoff`).
    server = await startServer({
      config: {
        agents: [
          {
            name: "triage",
            model: new ScriptedModel([
              { toolCalls: [{ name: "handoff", input: { to: "billing", reason: "an invoice question" } }] },
            ]),
            handoffs: ["billing"],
          },
          {
            name: "billing",
            model: new ScriptedModel([{ text: "Your invoice is paid." }, { text: "You are welcome." }]),
          },
        ],
      },
      store: "memory:",
      port: 0,
      tokensEnv: "",
      workspaces: false,
    });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(errors.splice(0)).toEqual([]);
  });

  async function reply(page: Page, text: string, answer: string): Promise<void> {
    await send(page, text);
    await page.waitForSelector(`.msg.assistant >> text=${answer}`);
    await page.waitForSelector("body[data-phase='idle']");
  }

  /** The transcript in order: each message's agent label (or role) and each marker's text. */
  const transcript = (page: Page) =>
    page
      .locator("#messages > .msg, #messages > .handoff-marker")
      .evaluateAll((nodes) =>
        nodes.map((n) =>
          n.classList.contains("handoff-marker")
            ? `marker: ${n.querySelector(".handoff-text")?.textContent}`
            : n.classList.contains("user")
              ? "user"
              : `assistant: ${n.querySelector(".msg-agent")?.textContent ?? "(unnamed)"}`,
        ),
      );

  it("marks the switch where it happened and names the answering agent on later replies, after a reload too", async () => {
    const opened = await openConsole(browser, server.url, { errors });
    context = opened.context;
    const page = opened.page;
    await page.selectOption("#agent", "triage");
    await reply(page, "is my invoice paid?", "Your invoice is paid.");

    // Live: triage's reply (its handoff call), the marker, then billing's reply, named.
    const marker = page.locator("#messages > .handoff-marker");
    await marker.waitFor();
    expect(await marker.locator(".handoff-text").textContent()).toBe("Handed off to billing");
    expect(await marker.locator(".handoff-reason").textContent()).toBe("an invoice question");
    expect(await marker.getAttribute("data-from")).toBe("triage");
    const live = await transcript(page);
    expect(live).toEqual([
      "user",
      "assistant: (unnamed)",
      "marker: Handed off to billing",
      "assistant: billing",
    ]);

    // The next turn is billing's too.
    await reply(page, "thanks", "You are welcome.");
    const both = [...live, "user", "assistant: billing"];
    expect(await transcript(page)).toEqual(both);
    await page.screenshot({ path: join(IMAGES, "console-handoff.png") });
    await expectAccessible(page);

    // After a reload the marker is folded from the stored events, the names from the stored replies.
    await page.reload();
    await page.waitForSelector(".msg.assistant >> text=You are welcome.");
    await page.locator("#messages > .handoff-marker").waitFor();
    expect(await transcript(page)).toEqual(both);
  });
});
