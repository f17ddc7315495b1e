import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import {
  type AgentEvent,
  type DecisionEvent,
  decisionsOf,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import { blocksOf, type Msg, userMsg } from "../../src/message/index.js";
import type { ApproverPolicy } from "../../src/permission/index.js";
import { type CreateStateStoreOptions, createStateStore } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { collect } from "./helpers.js";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");

function refunder(log: string[]) {
  return functionTool({
    name: "refund",
    description: "Refunds an order",
    input: z.object({ order: z.string() }),
    suggestRules: () => ["refund"],
    execute: ({ order }) => {
      log.push(order);
      return `refunded ${order}`;
    },
  });
}

/** An agent on a clock the test moves, whose refunds expire after a minute. */
function setup(
  policy: Partial<ApproverPolicy> = {},
  from: { state?: Agent["state"]; sessionId?: string; afterRestart?: boolean } = {},
) {
  const clock = { now: T0 };
  const log: string[] = [];
  const { afterRestart, ...start } = from;
  const model = new ScriptedModel([
    ...(afterRestart ? [] : [{ toolCalls: [{ name: "refund", input: { order: "A1" } }] }]),
    { text: "Handled." },
  ]);
  const agent = new Agent({
    name: "support",
    model,
    toolkit: [refunder(log)],
    approvers: {
      policies: [{ name: "refunds-expire", tools: ["refund"], expiresAfterMs: 60_000, ...policy }],
      now: () => clock.now,
    },
    ...start,
  });
  return { agent, log, clock, model };
}

const askOf = (events: AgentEvent[]) => {
  const ask = events.findLast((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!ask) throw new Error("no REQUIRE_USER_CONFIRM");
  return ask;
};
const records = (events: AgentEvent[]) => events.filter((e): e is DecisionEvent => e.type === "DECISION");
const approve = (ask: RequireUserConfirmEvent, name = "alice") =>
  userConfirmResult({
    replyId: ask.replyId,
    confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
    answeredBy: { name, channel: "code" },
  });

describe("pause deadlines", () => {
  it("the ask carries its deadline (in the record and in REQUIRE_USER_CONFIRM); an answer in time is taken", async () => {
    const { agent, log, clock } = setup();
    const first = await collect(agent.replyStream(userMsg("refund A1")));
    const ask = askOf(first);
    expect(ask.toolCalls[0]!.expiresAt).toBe("2026-01-01T00:01:00.000Z");
    expect(records(first)[0]).toMatchObject({
      outcome: "ask",
      policy: "refunds-expire",
      expiresAt: "2026-01-01T00:01:00.000Z",
    });
    clock.now = T0 + 59_999;
    await collect(agent.replyStream(approve(ask)));
    expect(log).toEqual(["A1"]);
  });

  it("a late answer is not taken: the call expires (a record and a denied result the model reads) and never runs", async () => {
    const { agent, log, clock, model } = setup();
    const ask = askOf(await collect(agent.replyStream(userMsg("refund A1"))));
    clock.now = T0 + 60_000;
    const rest = await collect(agent.replyStream(approve(ask)));
    expect(rest.some((e) => e.type === "USER_CONFIRM_RESULT")).toBe(false);
    expect(records(rest)).toEqual([
      expect.objectContaining({
        outcome: "expire",
        actor: "engine",
        policy: "refunds-expire",
        reason:
          "nobody answered before the deadline 2026-01-01T00:01:00.000Z; the answer that came after it was not taken",
      }),
    ]);
    expect(log).toEqual([]);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("denied");
    expect(result.output).toContain("expired at 2026-01-01T00:01:00.000Z");
    // the model read it on its next call
    const seen = model.calls[1]!.messages.at(-1) as Msg;
    expect(JSON.stringify(seen.content)).toContain("expired at 2026-01-01T00:01:00.000Z");
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("onExpiry approve: the deadline approves the call on record and it runs as asked", async () => {
    const { agent, log, clock } = setup({ onExpiry: "approve" });
    const ask = askOf(await collect(agent.replyStream(userMsg("refund A1"))));
    clock.now = T0 + 120_000;
    const rest = await collect(agent.replyStream(approve(ask, "bob")));
    expect(records(rest).map((r) => r.outcome)).toEqual(["expire"]);
    expect(rest.find((e) => e.type === "USER_CONFIRM_RESULT")).toMatchObject({
      answeredBy: { name: "deadline", channel: "engine" },
    });
    expect(log).toEqual(["A1"]);
  });

  it("asking again never extends the deadline: a refused answer keeps the first one", async () => {
    const { agent, clock } = setup({ roles: ["lead"] });
    const ask = askOf(await collect(agent.replyStream(userMsg("refund A1"))));
    clock.now = T0 + 30_000;
    const refused = await collect(agent.replyStream(approve(ask, "mallory")));
    expect(records(refused).map((r) => r.outcome)).toEqual(["policy_refusal", "ask"]);
    expect(askOf(refused).toolCalls[0]!.expiresAt).toBe("2026-01-01T00:01:00.000Z");
  });
});

const dir = mkdtempSync(join(tmpdir(), "agentscope-deadlines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: Array<{ name: string; port?: number; url: string; options: CreateStateStoreOptions }> = [
  { name: "SQLite", url: `sqlite:${join(dir, "state.db")}`, options: {} },
  { name: "Redis", port: 6379, url: "redis://127.0.0.1:6379", options: { prefix: `${runName("ddl")}:` } },
  {
    name: "PostgreSQL",
    port: 5432,
    url: "postgres://postgres@127.0.0.1:5432/test",
    options: { table: runName("ddl") },
  },
];

for (const kind of stores) {
  describe(`pause deadlines after a restart (${kind.name})`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }

    it("the deadline is stored with the pause: a new agent on the loaded state expires the late answer", async () => {
      const store = await createStateStore(kind.url, kind.options);
      const sessionId = runName("s");
      try {
        const before = setup({}, { sessionId });
        const ask = askOf(await collect(before.agent.replyStream(userMsg("refund A1"))));
        await store.save(sessionId, before.agent.state, { expectedVersion: 0 });

        const loaded = (await store.load(sessionId))!;
        const after = setup({}, { state: loaded.state, afterRestart: true });
        after.clock.now = T0 + 61_000;
        const rest = await collect(after.agent.replyStream(approve(ask)));
        await store.save(sessionId, after.agent.state, { expectedVersion: loaded.version });

        expect(records(rest).map((r) => r.outcome)).toEqual(["expire"]);
        expect(after.log).toEqual([]);
        const back = (await store.load(sessionId))!.state;
        expect(decisionsOf(back.context).map((r) => r.outcome)).toEqual(["ask", "expire"]);
        expect(blocksOf(back.context.at(-1)!, "tool_result")[0]!.state).toBe("denied");
        await store.delete(sessionId);
      } finally {
        await store.close();
      }
    });
  });
}
