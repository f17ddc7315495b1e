import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/index.js";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../../src/client/index.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { subAgentTool } from "../../../src/multiagent/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import type { Tool } from "../../../src/tool/index.js";
import {
  chromiumAvailable,
  DESKTOP,
  expectAccessible,
  launchChromium,
  openConsole,
  PHONE,
  SHOTS,
  send,
} from "./browser-kit.js";

const TOKEN = "tok-hints-alice";
const FACT = "Oat milk keeps seven days once opened.";
const SUB_ANSWER = "Found two sources on oat milk.";

const lastUserText = (messages: Msg[]) =>
  (messages.findLast((m) => m.role === "user")?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ");

/** A model playing one turn per call, chosen by `turn` from the conversation. */
function playing(turn: (messages: Msg[]) => ScriptedTurn): ChatModel {
  const base = new ScriptedModel([]);
  return {
    name: "keyword",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)], { chunkSize: 8 }).stream(messages, opts),
  };
}

const helperModel = playing((messages) => {
  if (messages.at(-1)?.content.some((b) => b.type === "tool_result"))
    return { text: "The researcher is done." };
  if (lastUserText(messages).includes("research"))
    return { toolCalls: [{ name: "researcher", input: { prompt: "find the sources" } }] };
  return { text: "Seven days." };
});

const researcher = subAgentTool(
  new Agent({
    name: "researcher",
    systemPrompt: "You research.",
    model: playing(() => ({ thinking: "Looking it up.", text: SUB_ANSWER })),
  }),
  { name: "researcher", description: "Researches a question" },
) as Tool;

describe.runIf(chromiumAvailable("console hints tests"))("console hints and sub-runs after a reload", () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startServer({
      config: {
        agents: [
          {
            name: "helper",
            model: helperModel,
            tools: [researcher],
            // Static RAG: the excerpts go in a hint before the reply, dropped from the stored reply after it.
            knowledge: { bases: "all", mode: "static" },
          },
        ],
        knowledge: { embedding: "hash" },
      },
      store: "memory:",
      port: 0,
      tokensEnv: `${TOKEN}:alice`,
      workspaces: false,
    });
    const client = new AgentScopeClient({ baseUrl: server.url, token: TOKEN });
    await client.knowledge.create("handbook", "Kitchen facts");
    const [job] = await client.knowledge.upload("handbook", [
      { name: "oat.md", content: `# Oat milk\n\n${FACT}\n` },
    ]);
    expect((await client.knowledge.waitForJob("handbook", job?.id ?? "", { intervalMs: 20 })).status).toBe(
      "done",
    );
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

  async function open(viewport = DESKTOP): Promise<Page> {
    const opened = await openConsole(browser, server.url, { token: TOKEN, viewport, errors });
    context = opened.context;
    return opened.page;
  }

  async function reply(page: Page, text: string, answer: string): Promise<void> {
    await send(page, text);
    await page.waitForSelector(`.msg.assistant >> text=${answer}`);
    await page.waitForSelector("body[data-phase='idle']");
  }

  it("shows the RAG excerpt a reply was given, collapsed under that reply, live and after a reload", async () => {
    const page = await open();
    await reply(page, "how long does oat milk keep?", "Seven days.");
    const hints = page.locator(".msg.assistant details.hints");
    // The stored reply no longer holds the hint (static RAG drops it): the console keeps it from the events.
    await hints.waitFor();
    expect(await hints.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);

    await page.reload();
    await page.waitForSelector(".msg.assistant >> text=Seven days.");
    await hints.waitFor();
    expect(await hints.count()).toBe(1);
    expect(await hints.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await hints.locator("summary").textContent()).toBe("Context the agent was given");
    await hints.locator("summary").click();
    expect(await hints.locator(".hint").textContent()).toContain(FACT);
    await page.screenshot({ path: join(SHOTS, "hints-desktop.png") });
    await expectAccessible(page);
  });

  it("keeps a sub-agent's run nested in the tool call that started it after a reload (phone width)", async () => {
    const page = await open(PHONE);
    await reply(page, "research oat milk", "The researcher is done.");
    const nested = page.locator(".tool details.subrun");
    await nested.waitFor();
    expect(await nested.textContent()).toContain(SUB_ANSWER);

    await page.reload();
    await page.waitForSelector(".msg.assistant >> text=The researcher is done.");
    await nested.waitFor();
    expect(await page.locator(".tool details.subrun").count()).toBe(1);
    expect(await nested.locator(":scope > summary").textContent()).toBe("Sub-agent helper/researcher");
    await nested.locator(":scope > summary").click();
    expect(await nested.locator(".subrun-body").textContent()).toContain(SUB_ANSWER);
    // It stays inside the call's card, not loose after the messages.
    expect(await page.locator(".messages > details.subrun").count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "subrun-reload-phone.png") });
  });
});
