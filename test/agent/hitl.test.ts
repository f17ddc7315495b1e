import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, ReplyStateError } from "../../src/agent/index.js";
import type { AgentEvent, RequireUserConfirmEvent } from "../../src/event/index.js";
import { externalExecutionResult, userConfirmResult, userInterrupt } from "../../src/event/index.js";
import { blocksOf, type ToolCallBlock, textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, shape, weather } from "./helpers.js";

function writer(log: string[]) {
  return functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    suggestRules: () => ["write_note"],
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });
}

function confirmEvent(events: AgentEvent[]): RequireUserConfirmEvent {
  const event = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  if (!event) throw new Error("no REQUIRE_USER_CONFIRM");
  return event;
}

const answer = (
  replyId: string,
  call: Pick<ToolCallBlock, "id" | "name" | "input">,
  confirmed: boolean,
  rules?: string[],
) =>
  userConfirmResult({
    replyId,
    confirmResults: [{ confirmed, toolCall: call, ...(rules ? { rules } : {}) }],
  });

describe("human in the loop", () => {
  it("an ask pauses the reply; a confirmation resumes the same reply and runs the tool once", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "hi" } }] },
      { text: "Done." },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log)] });
    const first = await collect(agent.replyStream(userMsg("note hi")));
    // The ask's decision record comes right before the ask it records (docs/permissions.md).
    expect(shape(first).slice(-3)).toEqual(["MODEL_CALL_END", "DECISION", "REQUIRE_USER_CONFIRM"]);
    expect(first.some((e) => e.type === "REPLY_END")).toBe(false);
    const ask = confirmEvent(first);
    expect(ask.toolCalls[0]).toMatchObject({
      name: "write_note",
      state: "asking",
      suggestedRules: ["write_note"],
    });
    expect(blocksOf(agent.state.context.at(-1)!, "tool_call")[0]!.state).toBe("asking");
    expect(agent.state.replyContext?.waitingFor).toBe("user_confirm");
    expect(log).toEqual([]);

    const second = await collect(agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, true)));
    expect(new Set(second.map((e) => e.replyId))).toEqual(new Set([ask.replyId]));
    expect(shape(second)[0]).toBe("USER_CONFIRM_RESULT");
    expect(second.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(log).toEqual(["hi"]);
    expect(agent.state.replyContext).toBeUndefined();
  });

  it("the user may edit the arguments before confirming", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "draft" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log)] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    const edited = { ...ask.toolCalls[0]!, input: JSON.stringify({ text: "final" }) };
    const reply = await agent.reply(answer(ask.replyId, edited, true));
    expect(log).toEqual(["final"]);
    expect(blocksOf(reply, "tool_call")[0]!.input).toBe('{"text":"final"}');
  });

  it("a refusal becomes a denied result the model reads; all refused → ALL_TOOLS_DENIED and the reply goes on", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "x" } }] },
      (messages) => {
        const result = blocksOf(messages.at(-1)!, "tool_result")[0]!;
        return { text: `noted: ${result.state}` };
      },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log)] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    const events = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: false, toolCall: ask.toolCalls[0]!, reason: "not today" }],
        }),
      ),
    );
    expect(shape(events)).toContain("ALL_TOOLS_DENIED");
    const reply = agent.state.context.at(-1)!;
    const result = blocksOf(reply, "tool_result")[0]!;
    expect(result.state).toBe("denied");
    expect(result.output).toContain("not today");
    expect(textOf(reply)).toBe("noted: denied");
    expect(log).toEqual([]);
  });

  it("a partial answer runs the confirmed call and leaves the other waiting", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "write_note", input: { text: "one" } },
          { name: "write_note", input: { text: "two" } },
        ],
      },
      { text: "both handled" },
    ]);
    const tool = functionTool({
      name: "write_note",
      description: "",
      input: z.object({ text: z.string() }),
      concurrencySafe: true,
      // Distinct suggestions per call: identical asks would be asked once.
      suggestRules: (input) => [`write_note(${(input as { text: string }).text})`],
      execute: ({ text }) => {
        log.push(text);
        return "ok";
      },
    });
    const agent = new Agent({ name: "a", model, toolkit: [tool] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    expect(ask.toolCalls).toHaveLength(2);
    const [one, two] = ask.toolCalls;
    const partial = await collect(agent.replyStream(answer(ask.replyId, one!, true)));
    expect(log).toEqual(["one"]);
    expect(partial.some((e) => e.type === "REPLY_END")).toBe(false);
    expect(confirmEvent(partial).toolCalls.map((c) => c.id)).toEqual([two!.id]);
    const rest = await collect(agent.replyStream(answer(ask.replyId, two!, true)));
    expect(log).toEqual(["one", "two"]);
    expect(rest.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
  });

  it("rules accepted during a confirmation persist in the state and allow the next call", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "a" } }] },
      { text: "first done" },
      { toolCalls: [{ name: "write_note", input: { text: "b" } }] },
      { text: "second done" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log)] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    await agent.reply(answer(ask.replyId, ask.toolCalls[0]!, true, ["write_note"]));
    expect(agent.state.permission.rules).toEqual([
      { toolName: "write_note", behavior: "allow", source: "confirmation" },
    ]);
    const events = await collect(agent.replyStream(userMsg("again")));
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(log).toEqual(["a", "b"]);
  });

  it("concurrency-safe calls run while another call of their batch waits for an answer", async () => {
    const secret = functionTool({
      name: "read_secret",
      description: "",
      input: z.object({}),
      readOnly: true,
      isReadOnly: () => false,
      checkPermissions: () => ({ behavior: "ask", reason: "reads a secret", safety: true }),
      execute: () => "s3cret",
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "read_secret", input: {} },
          { name: "get_weather", input: { city: "Oslo" } },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [secret, weather] });
    const events = await collect(agent.replyStream(userMsg("go")));
    const reply = agent.state.context.at(-1)!;
    expect(blocksOf(reply, "tool_result").map((r) => r.name)).toEqual(["get_weather"]);
    expect(confirmEvent(events).toolCalls.map((c) => c.name)).toEqual(["read_secret"]);
  });

  it("a sequential batch stops at the first ask", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "write_note", input: { text: "1" } },
          { name: "get_weather", input: { city: "Rome" } },
        ],
      },
      { text: "ok" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer(log), weather] });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(events.some((e) => e.type === "TOOL_RESULT_START")).toBe(false);
    const ask = confirmEvent(events);
    const rest = await collect(agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, true)));
    expect(rest.filter((e) => e.type === "TOOL_RESULT_END")).toHaveLength(2);
  });

  it("an external tool pauses with REQUIRE_EXTERNAL_EXECUTION and continues with the results", async () => {
    const browser = functionTool({
      name: "click",
      description: "Clicks in the user's browser",
      input: z.object({ selector: z.string() }),
      readOnly: true,
      external: true,
      execute: () => {
        throw new Error("never runs in-process");
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "click", input: { selector: "#go" } }] },
      { text: "clicked" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [browser] });
    const events = await collect(agent.replyStream(userMsg("click go")));
    const pause = events.at(-1)!;
    expect(pause.type).toBe("REQUIRE_EXTERNAL_EXECUTION");
    if (pause.type !== "REQUIRE_EXTERNAL_EXECUTION") return;
    expect(agent.state.replyContext?.waitingFor).toBe("external_execution");
    const call = pause.toolCalls[0]!;
    const rest = await collect(
      agent.replyStream(
        externalExecutionResult({
          replyId: pause.replyId,
          toolResults: [
            { type: "tool_result", id: call.id, name: call.name, output: "clicked #go", state: "success" },
          ],
        }),
      ),
    );
    expect(shape(rest).slice(0, 4)).toEqual([
      "EXTERNAL_EXECUTION_RESULT",
      "TOOL_RESULT_START",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_END",
    ]);
    const reply = agent.state.context.at(-1)!;
    expect(blocksOf(reply, "tool_result")[0]).toMatchObject({ output: "clicked #go", state: "success" });
    expect(textOf(reply)).toBe("clicked");
  });

  it("USER_INTERRUPT on a paused reply closes the waiting calls and ends it", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_note", input: { text: "x" } }] },
      { text: "later" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writer([])] });
    const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
    const events = await collect(
      agent.replyStream(userInterrupt({ replyId: ask.replyId, reason: "changed my mind" })),
    );
    expect(events[0]!.type).toBe("USER_INTERRUPT");
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
    expect(events.filter((e) => e.type === "REPLY_END")).toHaveLength(1);
    const result = blocksOf(agent.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("interrupted");
    expect(textOf(await agent.reply(userMsg("next")))).toBe("later");
  });

  describe("bad answers get a clear error and change nothing", () => {
    async function paused() {
      const model = new ScriptedModel([
        { toolCalls: [{ name: "write_note", input: { text: "x" } }] },
        { text: "ok" },
      ]);
      const agent = new Agent({ name: "a", model, toolkit: [writer([])] });
      const ask = confirmEvent(await collect(agent.replyStream(userMsg("go"))));
      return { agent, ask, before: JSON.stringify(agent.state) };
    }

    it("an unknown call id", async () => {
      const { agent, ask, before } = await paused();
      const bad = answer(ask.replyId, { id: "call_nope", name: "write_note", input: "{}" }, true);
      await expect(collect(agent.replyStream(bad))).rejects.toThrow(/unknown tool call "call_nope"/);
      expect(JSON.stringify(agent.state)).toBe(before);
    });

    it("a second answer for an answered call", async () => {
      const { agent, ask } = await paused();
      await agent.reply(answer(ask.replyId, ask.toolCalls[0]!, true));
      const after = JSON.stringify(agent.state);
      await expect(collect(agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, true)))).rejects.toThrow(
        ReplyStateError,
      );
      expect(JSON.stringify(agent.state)).toBe(after);
    });

    it("a new user message while calls wait", async () => {
      const { agent, before } = await paused();
      await expect(collect(agent.replyStream(userMsg("ignore that")))).rejects.toThrow(
        /waiting for a confirmation/,
      );
      expect(JSON.stringify(agent.state)).toBe(before);
    });

    it("an answer for another reply", async () => {
      const { agent, ask, before } = await paused();
      await expect(
        collect(agent.replyStream(answer("reply_other", ask.toolCalls[0]!, true))),
      ).rejects.toThrow(/reply_other/);
      expect(JSON.stringify(agent.state)).toBe(before);
    });

    it("a malformed rule", async () => {
      const { agent, ask, before } = await paused();
      await expect(
        collect(agent.replyStream(answer(ask.replyId, ask.toolCalls[0]!, true, ["Bash(oops"]))),
      ).rejects.toThrow(/Bash\(oops/);
      expect(JSON.stringify(agent.state)).toBe(before);
    });
  });
});
