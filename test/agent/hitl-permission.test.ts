import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type {
  AgentEvent,
  RequireExternalExecutionEvent,
  RequireUserConfirmEvent,
} from "../../src/event/index.js";
import { userConfirmResult, userInterrupt } from "../../src/event/index.js";
import { type ToolCallBlock, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

/** A concurrency-safe note writer; `suggest` decides the "always allow" rule it offers per call. */
function writer(log: string[], suggest?: (text: string) => string[]) {
  return functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    concurrencySafe: true,
    ...(suggest ? { suggestRules: (input: unknown) => suggest((input as { text: string }).text) } : {}),
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });
}

function twoNotes(): ScriptedModel {
  return new ScriptedModel([
    {
      toolCalls: [
        { name: "write_note", input: { text: "one" } },
        { name: "write_note", input: { text: "two" } },
      ],
    },
    { text: "done" },
  ]);
}

function confirmEvent(events: AgentEvent[]): RequireUserConfirmEvent {
  const event = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!event) throw new Error("no REQUIRE_USER_CONFIRM");
  return event;
}

const confirm = (replyId: string, call: Pick<ToolCallBlock, "id" | "name" | "input">, rules?: string[]) =>
  userConfirmResult({
    replyId,
    confirmResults: [{ confirmed: true, toolCall: call, ...(rules ? { rules } : {}) }],
  });

describe("confirmations the way the reference asks them", () => {
  it("an always-allow answer for one call clears the waiting siblings the new rule allows", async () => {
    const log: string[] = [];
    const agent = new Agent({
      name: "a",
      model: twoNotes(),
      // The answer may only remember a rule the ask offered: here the broad one is offered too.
      toolkit: [writer(log, (text) => [`write_note(${text})`, "write_note"])],
    });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    expect(ask.toolCalls.map((call) => call.state)).toEqual(["asking", "asking"]);
    const rest = await collect(agent.replyStream(confirm(ask.replyId, ask.toolCalls[0]!, ["write_note"])));
    expect(rest.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(log).toEqual(["one", "two"]);
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("a confirmation without a rule leaves the siblings waiting", async () => {
    const log: string[] = [];
    const agent = new Agent({
      name: "a",
      model: twoNotes(),
      toolkit: [writer(log, (text) => [`write_note(${text})`])],
    });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    const rest = await collect(agent.replyStream(confirm(ask.replyId, ask.toolCalls[0]!)));
    expect(log).toEqual(["one"]);
    expect(confirmEvent(rest).toolCalls.map((call) => call.id)).toEqual([ask.toolCalls[1]!.id]);
  });

  it("identical asks in one batch are asked once; the answer's rule clears the rest", async () => {
    const log: string[] = [];
    const agent = new Agent({ name: "a", model: twoNotes(), toolkit: [writer(log, () => ["write_note"])] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    expect(ask.toolCalls).toHaveLength(1);
    expect(ask.toolCalls[0]).toMatchObject({ state: "asking", suggestedRules: ["write_note"] });
    const rest = await collect(agent.replyStream(confirm(ask.replyId, ask.toolCalls[0]!, ["write_note"])));
    expect(log).toEqual(["one", "two"]);
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("a tool with no suggestions of its own offers its whole name as the always-allow rule", async () => {
    const agent = new Agent({ name: "a", model: twoNotes(), toolkit: [writer([])] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    expect(ask.toolCalls[0]!.suggestedRules).toEqual(["write_note"]);
  });

  it("REQUIRE_EXTERNAL_EXECUTION carries its calls as submitted", async () => {
    const click = functionTool({
      name: "click",
      description: "Clicks in the user's browser",
      input: z.object({ selector: z.string() }),
      readOnly: true,
      external: true,
      execute: () => "never runs here",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "click", input: { selector: "#go" } }] }]);
    const agent = new Agent({ name: "a", model, toolkit: [click] });
    const events = await collect(agent.replyStream(userMsg("click")));
    const pause = events.find(
      (e): e is RequireExternalExecutionEvent => e.type === "REQUIRE_EXTERNAL_EXECUTION",
    );
    expect(pause?.toolCalls.map((call) => call.state)).toEqual(["submitted"]);
  });

  it("USER_INTERRUPT on a session with nothing in flight is a no-op", async () => {
    const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "hello" }]), toolkit: [] });
    expect(
      await collect(agent.replyStream(userInterrupt({ replyId: "reply_none", reason: "stop" }))),
    ).toEqual([]);
    const answered = await agent.reply(userMsg("hi"));
    const before = JSON.stringify(agent.state);
    expect(await collect(agent.replyStream(userInterrupt({ replyId: "reply_none" })))).toEqual([]);
    expect(JSON.stringify(agent.state)).toBe(before);
    expect((await agent.reply(userInterrupt({ replyId: "reply_none" }))).id).toBe(answered.id);
  });
});
