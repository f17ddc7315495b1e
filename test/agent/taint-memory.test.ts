import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, type Middleware, taintReply } from "../../src/agent/index.js";
import { decisionsOf, userInterrupt } from "../../src/event/index.js";
import { textOf, userMsg, ValidationError } from "../../src/message/index.js";
import { type AgentStateStore, createStateStore, parseAgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { openTestDatabase } from "../support/sqlite-file.js";
import { agentOf, askOf, bashStep, COMMAND, fetchStep, run, TAINT, tools } from "./taint-scenario.js";

/**
 * Issue 44 item 2, taint that outlives its reply: the page a reply read stays in the agent's memory
 * and may steer later replies, so the mark is kept in the state with the messages that hold the page,
 * through a real store and a new Agent, and goes when they leave the memory.
 */

const dir = mkdtempSync(join(tmpdir(), "agentscope-taint-memory-"));
const stores: AgentStateStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});
async function sqliteStore(name: string): Promise<{ store: AgentStateStore; file: string }> {
  const file = join(dir, `${name}.db`);
  const store = await createStateStore(`sqlite:${file}`);
  stores.push(store);
  return { store, file };
}

const PAGE_REASON = "a web page (web_fetch)";
const recipe = [fetchStep, { text: "Here is the recipe." }];

/** The person declines the paused reply's ask: it ends, interrupted. */
async function declined(agent: Agent): Promise<void> {
  const replyId = agent.state.replyContext?.replyId;
  if (!replyId) throw new Error("no paused reply");
  await agent.reply(userInterrupt({ replyId, reason: "declined" }));
}

function restarted(steps: Parameters<typeof agentOf>[0], ran: string[], state: Agent["state"]) {
  return new Agent({
    name: "a",
    model: new ScriptedModel(steps),
    toolkit: tools(ran),
    permission: { rules: ["Bash"] },
    taint: TAINT,
    state,
  });
}

describe("taint kept in memory across replies", () => {
  it("through a SQLite store and a restart, reply 2's Bash call asks naming the page; after the memory is cleared it runs", async () => {
    const { store } = await sqliteStore("restart");
    const ran: string[] = [];
    const first = agentOf(recipe, ran);
    await run(first, userMsg("find me a pasta recipe"));
    const replyId = first.state.context.at(-1)!.id;
    expect(first.state.replyContext).toBeUndefined();
    expect(first.state.taint).toEqual([{ reason: PAGE_REASON, messages: [replyId] }]);
    const sessionId = first.state.sessionId;
    await store.save(sessionId, first.state, { expectedVersion: 0 });

    // Another process: another store on the same file, another Agent.
    const { store: other } = await sqliteStore("restart");
    const loaded = await other.load(sessionId);
    expect(loaded?.state.taint).toEqual([{ reason: PAGE_REASON, messages: [replyId] }]);
    const second = restarted([bashStep], ran, loaded!.state);
    const events = await run(second, userMsg("now run my build"));
    const ask = askOf(events)?.toolCalls[0];
    expect(ask?.name).toBe("Bash");
    expect(ask?.reason).toBe(
      `Bash asks after reading ${PAGE_REASON}: the reply holds untrusted content that may be steering it`,
    );
    expect(ask?.taint).toEqual([PAGE_REASON]);
    expect(decisionsOf(second.state.context).find((r) => r.outcome === "ask")?.taint).toEqual([PAGE_REASON]);
    expect(ran).toEqual([]);
    // The mark did not spread to reply 2 (it read nothing): it is the page's Msg that carries it.
    expect(second.state.taint).toEqual([{ reason: PAGE_REASON, messages: [replyId] }]);

    // The person clears the conversation: the page is no longer in memory, nor is the mark.
    delete second.state.replyContext;
    second.state.context = [];
    await other.save(sessionId, second.state, { expectedVersion: loaded!.version });
    const third = restarted([bashStep, { text: "done" }], ran, (await other.load(sessionId))!.state);
    expect(askOf(await run(third, userMsg("run my build")))).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
    expect(third.state.taint).toBeUndefined();
  });

  it("deleting the page's reply from the context removes the mark; deleting another message does not", async () => {
    const ran: string[] = [];
    const agent = agentOf([...recipe, { text: "ok" }, bashStep, bashStep, { text: "ran" }], ran);
    await run(agent, userMsg("recipe?"));
    const page = agent.state.context.at(-1)!;
    await run(agent, userMsg("thanks"));
    // The user's "thanks" and its answer go: the page's reply is still there.
    agent.state.context.splice(-2, 2);
    expect(askOf(await run(agent, userMsg("run my build")))?.toolCalls[0]?.taint).toEqual([PAGE_REASON]);
    await declined(agent);
    agent.state.context = agent.state.context.filter((msg) => msg.id !== page.id);
    expect(askOf(await run(agent, userMsg("run my build")))).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("a compression summary that replaced the page inherits its mark, until the summary goes", async () => {
    const ran: string[] = [];
    const agent = agentOf([...recipe, { text: "ok" }, bashStep, bashStep, { text: "ran" }], ran, TAINT, {
      context: { summaryModel: new ScriptedModel([{ text: "They fetched a recipe page." }]) },
    });
    await run(agent, userMsg("recipe?"));
    const page = agent.state.context.at(-1)!;
    await run(agent, userMsg("thanks"));
    const compressed = await agent.compressContext();
    expect(compressed.compressed).toBe(true);
    expect(agent.state.context.some((msg) => msg.id === page.id)).toBe(false);
    expect(agent.state.taint).toEqual([{ reason: PAGE_REASON, messages: [], summary: true }]);
    // Through the state's JSON as a store holds it.
    expect(parseAgentState(JSON.parse(JSON.stringify(agent.state))).taint).toEqual(agent.state.taint);
    const ask = askOf(await run(agent, userMsg("run my build")));
    expect(ask?.toolCalls[0]?.reason).toContain(`after reading ${PAGE_REASON}`);
    // The summary is dropped: the page is gone from memory, and so is the mark.
    await declined(agent);
    delete agent.state.summary;
    expect(askOf(await run(agent, userMsg("run my build")))).toBeUndefined();
    expect(agent.state.taint).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });

  it("a compression that only summarised other messages leaves the mark on the page's Msg", async () => {
    const ran: string[] = [];
    const agent = agentOf([{ text: "hi" }, ...recipe], ran, TAINT, {
      context: { summaryModel: new ScriptedModel([{ text: "They said hello." }]) },
    });
    await run(agent, userMsg("hello"));
    await run(agent, userMsg("recipe?"));
    const page = agent.state.context.at(-1)!;
    await agent.compressContext();
    expect(agent.state.context.some((msg) => msg.id === page.id)).toBe(true);
    expect(agent.state.taint).toEqual([{ reason: PAGE_REASON, messages: [page.id] }]);
  });

  it("scope reply keeps nothing in the state; an agent without taint never writes a mark (controls)", async () => {
    const ran: string[] = [];
    const scoped = agentOf([...recipe, bashStep, { text: "done" }], ran, { ...TAINT, scope: "reply" });
    await run(scoped, userMsg("recipe?"));
    expect(scoped.state.taint).toBeUndefined();
    const plain = agentOf([...recipe, bashStep, { text: "done" }], ran, null);
    await run(plain, userMsg("recipe?"));
    expect(plain.state.taint).toBeUndefined();
    expect(askOf(await run(plain, userMsg("run it")))).toBeUndefined();
    expect(askOf(await run(scoped, userMsg("run it")))).toBeUndefined();
    expect(ran).toEqual([COMMAND, COMMAND]);
  });
});

describe("a middleware's own source", () => {
  // A middleware that puts mail into the reply marks it with taintReply, as ragMiddleware does.
  const inbox: Middleware = {
    name: "inbox",
    beforeReasoning(iteration, ctx) {
      if (iteration === 1 && textOf(ctx.state.context.at(-2)!) === "read my mail")
        taintReply(ctx.state, "an email (inbox)");
    },
  };

  it("is kept in memory by an agent with taint, and marks the next reply", async () => {
    const ran: string[] = [];
    const agent = agentOf([{ text: "You have mail." }, bashStep, { text: "done" }], ran, TAINT, {
      middlewares: [inbox],
    });
    await run(agent, userMsg("read my mail"));
    expect(agent.state.taint).toEqual([
      { reason: "an email (inbox)", messages: [agent.state.context.at(-1)!.id] },
    ]);
    expect(askOf(await run(agent, userMsg("run my build")))?.toolCalls[0]?.taint).toEqual([
      "an email (inbox)",
    ]);
    expect(ran).toEqual([]);
  });

  it("leaves nothing in the state of an agent without taint (a control)", async () => {
    const ran: string[] = [];
    const agent = agentOf([{ text: "You have mail." }, bashStep, { text: "done" }], ran, null, {
      middlewares: [inbox],
    });
    await run(agent, userMsg("read my mail"));
    expect(agent.state.taint).toBeUndefined();
    expect(askOf(await run(agent, userMsg("run my build")))).toBeUndefined();
    expect(ran).toEqual([COMMAND]);
  });
});

describe("stored marks are validated", () => {
  it.each([
    ["not a list", "yes", "taint"],
    ["a mark without a reason", [{ messages: ["m"] }], "taint[0].reason"],
    ["an empty message id", [{ reason: "a web page", messages: [""] }], "taint[0].messages[0]"],
    [
      "a summary flag that is not true",
      [{ reason: "a web page", messages: [], summary: "no" }],
      "taint[0].summary",
    ],
  ])("a state with %s is an error naming the field", (_label, taint, path) => {
    const state = { ...agentOf([], []).state, taint };
    let error: unknown;
    try {
      parseAgentState(JSON.stringify(state));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(path);
  });

  it("a SQLite row whose marks were changed behind the store's back fails to load, naming the field", async () => {
    const { store, file } = await sqliteStore("damaged");
    const agent = agentOf(recipe, []);
    await run(agent, userMsg("recipe?"));
    const sessionId = agent.state.sessionId;
    await store.save(sessionId, agent.state, { expectedVersion: 0 });
    const db = await openTestDatabase(file);
    db.prepare("UPDATE agentscope_state SET state = ? WHERE session_id = ?").run(
      JSON.stringify({ ...agent.state, taint: [{ reason: 42, messages: [] }] }),
      sessionId,
    );
    db.close();
    const load = store.load(sessionId);
    await expect(load).rejects.toThrow(ValidationError);
    await expect(load).rejects.toThrow(`session "${sessionId}"`);
    await expect(load).rejects.toMatchObject({ path: "taint[0].reason" });
  });

  it("a stored patch that sets bad marks fails to load, naming the patch and the field", async () => {
    const { store, file } = await sqliteStore("patched");
    const agent = agentOf([{ text: "hi" }, ...recipe], []);
    await run(agent, userMsg("hello"));
    const sessionId = agent.state.sessionId;
    await store.save(sessionId, agent.state, { expectedVersion: 0 });
    await store.load(sessionId); // validated once: the store trusts this snapshot by its hash from now on
    await run(agent, userMsg("recipe?"));
    await store.save(sessionId, agent.state, { expectedVersion: 1 });
    const db = await openTestDatabase(file);
    const row = db
      .prepare<[string], { patch: string }>(
        "SELECT patch FROM agentscope_state_patches WHERE session_id = ? AND version = 2",
      )
      .get(sessionId);
    expect(row).toBeDefined();
    const patch = JSON.parse(row!.patch) as { set?: Record<string, unknown> };
    expect(patch.set?.taint).toBeDefined();
    patch.set!.taint = [{ reason: "a web page", messages: "all" }];
    db.prepare("UPDATE agentscope_state_patches SET patch = ? WHERE session_id = ? AND version = 2").run(
      JSON.stringify(patch),
      sessionId,
    );
    db.close();
    // Only the patch after the trusted snapshot is checked, field by field.
    const load = store.load(sessionId);
    await expect(load).rejects.toThrow(`session "${sessionId}"`);
    await expect(load).rejects.toMatchObject({ path: "patch 2.set.taint[0].messages" });
  });
});
