import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import {
  type AgentEvent,
  type DecisionEvent,
  decisionsIn,
  decisionsOf,
  externalExecutionResult,
  foldEvents,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import { blocksOf, type ToolCallBlock, userMsg } from "../../src/message/index.js";
import { type CreateStateStoreOptions, createStateStore } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";
import { collect, shape } from "./helpers.js";

function writer(log: string[]) {
  return functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string(), tags: z.array(z.string()).optional() }),
    suggestRules: () => ["write_note"],
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });
}

const noting = (...texts: string[]) =>
  new ScriptedModel([
    { toolCalls: texts.map((text) => ({ name: "write_note", input: { text } })) },
    { text: "Done." },
  ]);

function askOf(events: AgentEvent[]): RequireUserConfirmEvent {
  const ask = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!ask) throw new Error("no REQUIRE_USER_CONFIRM");
  return ask;
}

const records = (events: AgentEvent[]) => events.filter((e): e is DecisionEvent => e.type === "DECISION");

const answer = (
  replyId: string,
  call: Pick<ToolCallBlock, "id" | "name" | "input">,
  fields: { confirmed: boolean; input?: string; rules?: string[]; reason?: string },
  by?: string,
) =>
  userConfirmResult({
    replyId,
    confirmResults: [
      {
        confirmed: fields.confirmed,
        toolCall: { id: call.id, name: call.name, input: fields.input ?? call.input },
        ...(fields.rules ? { rules: fields.rules } : {}),
        ...(fields.reason ? { reason: fields.reason } : {}),
      },
    ],
    ...(by ? { answeredBy: { name: by, channel: "code" as const } } : {}),
  });

describe("decision records", () => {
  it("an ask is recorded right before it, the approval right after the answer, with who and how", async () => {
    const log: string[] = [];
    const agent = new Agent({ name: "a", model: noting("hi"), toolkit: [writer(log)] });
    const first = await collect(agent.replyStream(userMsg("note hi")));
    const ask = askOf(first);
    const call = ask.toolCalls[0]!;
    expect(shape(first).slice(-2)).toEqual(["DECISION", "REQUIRE_USER_CONFIRM"]);
    expect(records(first)).toEqual([
      expect.objectContaining({
        replyId: ask.replyId,
        toolCallId: call.id,
        toolName: "write_note",
        outcome: "ask",
        input: '{"text":"hi"}',
        mode: "default",
        actor: "engine",
        channel: "engine",
        reason: "default mode asks before write_note runs",
      }),
    ]);

    const second = await collect(agent.replyStream(answer(ask.replyId, call, { confirmed: true }, "alice")));
    expect(shape(second).slice(0, 2)).toEqual(["USER_CONFIRM_RESULT", "DECISION"]);
    expect(records(second)).toEqual([
      expect.objectContaining({ toolCallId: call.id, outcome: "approve", actor: "alice", channel: "code" }),
    ]);
    expect(log).toEqual(["hi"]);

    // Stored with the reply, in order, and the fold of the stream rebuilds exactly that Msg.
    const stored = agent.state.context.at(-1)!;
    expect(decisionsOf(agent.state.context).map((r) => r.outcome)).toEqual(["ask", "approve"]);
    expect(decisionsOf(agent.state.context)).toEqual(decisionsIn([...first, ...second]));
    expect(foldEvents([...first, ...second])).toEqual(stored);
  });

  it("an answer that names nobody is the caller's: user, through code", async () => {
    const agent = new Agent({ name: "a", model: noting("hi"), toolkit: [writer([])] });
    const ask = askOf(await collect(agent.replyStream(userMsg("go"))));
    const rest = await collect(
      agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, { confirmed: true })),
    );
    expect(records(rest)[0]).toMatchObject({ outcome: "approve", actor: "user", channel: "code" });
  });

  it("an edit records the input asked about, the input approved and their diff; the tool runs the edit", async () => {
    const log: string[] = [];
    const agent = new Agent({ name: "a", model: noting("hi"), toolkit: [writer(log)] });
    const ask = askOf(await collect(agent.replyStream(userMsg("go"))));
    const edited = '{"text":"bye","tags":["x"]}';
    const rest = await collect(
      agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, { confirmed: true, input: edited }, "bob")),
    );
    expect(records(rest)[0]).toMatchObject({
      outcome: "edit",
      input: '{"text":"hi"}',
      approvedInput: edited,
      diff: [
        { path: "/text", before: "hi", after: "bye" },
        { path: "/tags", after: ["x"] },
      ],
      actor: "bob",
    });
    expect(log).toEqual(["bye"]);
  });

  it("always-allow records the rules remembered; a later call the rule lets through is recorded as the rule's allow", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "a" } }] },
      { text: "ok" },
      { toolCalls: [{ name: "write_note", input: { text: "b" } }] },
      { text: "ok again" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log)] });
    const ask = askOf(await collect(agent.replyStream(userMsg("a"))));
    const rest = await collect(
      agent.replyStream(
        answer(ask.replyId, ask.toolCalls[0]!, { confirmed: true, rules: ["write_note"] }, "carol"),
      ),
    );
    expect(records(rest)).toEqual([
      expect.objectContaining({ outcome: "always_allow", rules: ["write_note"], actor: "carol" }),
    ]);
    const later = await collect(agent.replyStream(userMsg("b")));
    expect(records(later)).toEqual([
      expect.objectContaining({
        outcome: "allow",
        rule: "write_note",
        actor: "engine",
        input: '{"text":"b"}',
      }),
    ]);
    // the rule's record comes before the call runs
    const types = shape(later);
    expect(types.indexOf("DECISION")).toBeLessThan(types.indexOf("TOOL_RESULT_START"));
    expect(log).toEqual(["a", "b"]);
  });

  it("a person's refusal and a rule's deny are both on record, each before its denied result", async () => {
    const agent = new Agent({ name: "a", model: noting("hi"), toolkit: [writer([])] });
    const ask = askOf(await collect(agent.replyStream(userMsg("go"))));
    const refused = await collect(
      agent.replyStream(
        answer(ask.replyId, ask.toolCalls[0]!, { confirmed: false, reason: "not now" }, "dan"),
      ),
    );
    expect(records(refused)[0]).toMatchObject({ outcome: "deny", actor: "dan", reason: "not now" });
    expect(shape(refused).indexOf("DECISION")).toBeLessThan(shape(refused).indexOf("TOOL_RESULT_START"));

    const ruled = new Agent({
      name: "a",
      model: noting("hi"),
      toolkit: [writer([])],
      permission: { mode: "accept_edits", deny: ["write_note"] },
    });
    const events = await collect(ruled.replyStream(userMsg("go")));
    expect(records(events)).toEqual([
      expect.objectContaining({
        outcome: "deny",
        rule: "write_note",
        mode: "accept_edits",
        actor: "engine",
        channel: "engine",
        reason: "denied by the rule write_note",
      }),
    ]);
    const types = shape(events);
    expect(types.indexOf("DECISION")).toBe(types.indexOf("TOOL_RESULT_START") - 1);
  });

  it("a call the engine allows without a rule (read-only, bypass) leaves no record", async () => {
    const agent = new Agent({
      name: "a",
      model: noting("hi"),
      toolkit: [writer([])],
      permission: { mode: "bypass" },
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(records(events)).toEqual([]);
    expect(agent.state.context.at(-1)!.metadata).toEqual({});
  });

  it("an external result is recorded after its result, as sent by whoever sent it", async () => {
    const click = functionTool({
      name: "click",
      description: "Clicks in the user's browser",
      input: z.object({ selector: z.string() }),
      external: true,
      execute: () => "never here",
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "click", input: { selector: "#go" } }] },
      { text: "clicked" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [click], permission: { allow: ["click"] } });
    const first = await collect(agent.replyStream(userMsg("click")));
    const pause = first.at(-1)!;
    if (pause.type !== "REQUIRE_EXTERNAL_EXECUTION") throw new Error(`paused with ${pause.type}`);
    expect(records(first).map((r) => r.outcome)).toEqual(["allow"]);
    const call = pause.toolCalls[0]!;
    const rest = await collect(
      agent.replyStream(
        externalExecutionResult({
          replyId: pause.replyId,
          toolResults: [
            { type: "tool_result", id: call.id, name: call.name, output: "ok", state: "success" },
          ],
          answeredBy: { name: "browser-tab", channel: "agui" },
        }),
      ),
    );
    expect(shape(rest).slice(0, 5)).toEqual([
      "EXTERNAL_EXECUTION_RESULT",
      "TOOL_RESULT_START",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_END",
      "DECISION",
    ]);
    expect(records(rest)[0]).toMatchObject({
      outcome: "external_result",
      toolCallId: call.id,
      actor: "browser-tab",
      channel: "agui",
    });
  });
});

const dir = mkdtempSync(join(tmpdir(), "agentscope-decisions-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: Array<{ name: string; port?: number; url: string; options: CreateStateStoreOptions }> = [
  { name: "SQLite", url: `sqlite:${join(dir, "state.db")}`, options: {} },
  { name: "Redis", port: 6379, url: "redis://127.0.0.1:6379", options: { prefix: `${runName("dec")}:` } },
  {
    name: "PostgreSQL",
    port: 5432,
    url: "postgres://postgres@127.0.0.1:5432/test",
    options: { table: runName("dec") },
  },
];

for (const kind of stores) {
  describe(`decision records in a ${kind.name} store`, async () => {
    const missing = kind.port ? await missingService(kind.name, kind.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }

    it("a pause stored with its ask record is answered in another agent; both records load back, in order", async () => {
      const store = await createStateStore(kind.url, kind.options);
      const sessionId = runName("s");
      try {
        const first = new Agent({ name: "a", model: noting("hi"), toolkit: [writer([])], sessionId });
        const asked = await collect(first.replyStream(userMsg("go")));
        await store.save(sessionId, first.state, { expectedVersion: 0 });

        const loaded = await store.load(sessionId);
        const log: string[] = [];
        const second = new Agent({
          name: "a",
          model: new ScriptedModel([{ text: "Done." }]),
          toolkit: [writer(log)],
          state: loaded!.state,
        });
        const ask = askOf(asked);
        const answered = await collect(
          second.replyStream(answer(ask.replyId, ask.toolCalls[0]!, { confirmed: true }, "erin")),
        );
        await store.save(sessionId, second.state, { expectedVersion: loaded!.version });

        const back = (await store.load(sessionId))!.state;
        expect(decisionsOf(back.context)).toEqual(decisionsIn([...asked, ...answered]));
        expect(decisionsOf(back.context).map((r) => [r.outcome, r.actor])).toEqual([
          ["ask", "engine"],
          ["approve", "erin"],
        ]);
        expect(blocksOf(back.context.at(-1)!, "tool_result")[0]!.state).toBe("success");
        expect(log).toEqual(["hi"]);
        await store.delete(sessionId);
      } finally {
        await store.close();
      }
    });
  });
}
