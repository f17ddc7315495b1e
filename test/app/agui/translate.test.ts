import { verifyEvents } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/index.js";
import { resumeInput } from "../../../src/app/agui/input.js";
import type { AguiEvent } from "../../../src/app/agui/protocol.js";
import { finishAguiRun, startAguiRun, translateEvent } from "../../../src/app/agui/translate.js";
import { type AgentEvent, createEvent } from "../../../src/event/index.js";
import { AgentScopeError, type ToolCallBlock, userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";

const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny in ${city}`,
});
const writeNote = (log: string[]) =>
  functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    suggestRules: () => ["write_note"],
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });

/** Translates a whole agent stream as one AG-UI run. */
async function translateRun(
  stream: AsyncIterable<AgentEvent>,
  runId = "run-1",
  state?: unknown,
): Promise<AguiEvent[]> {
  const { translation, events } = startAguiRun({ threadId: "thread-1", runId, state });
  try {
    for await (const event of stream) events.push(...translateEvent(translation, event));
    events.push(...finishAguiRun(translation));
  } catch (error) {
    events.push(...finishAguiRun(translation, { message: (error as Error).message, code: "internal" }));
  }
  return events;
}

/** Every event is valid under @ag-ui/core's schemas, and the client's order checks accept the stream. */
async function expectValid(events: AguiEvent[]): Promise<void> {
  for (const event of events) expect(() => EventSchemas.parse(event), JSON.stringify(event)).not.toThrow();
  const checked = await lastValueFrom(
    from(events as unknown as BaseEvent[]).pipe(verifyEvents(false), toArray()),
  );
  expect(checked).toHaveLength(events.length);
}

const waitingCalls = (agent: Agent) =>
  agent.state.context
    .at(-1)!
    .content.filter(
      (b): b is ToolCallBlock => b.type === "tool_call" && (b.state === "asking" || b.state === "submitted"),
    );

const types = (events: AguiEvent[]) =>
  events
    .map((e) => e.type)
    .filter(
      (type, i, all) => !(type.endsWith("_CONTENT") || type === "TOOL_CALL_ARGS") || all[i - 1] !== type,
    );

describe("AgentEvent → AG-UI translation", () => {
  it("a run with thinking, a tool and an answer becomes one well-ordered AG-UI run", async () => {
    const model = new ScriptedModel([
      {
        thinking: "need weather",
        text: "Let me check.",
        toolCalls: [{ id: "c1", name: "get_weather", input: { city: "Paris" } }],
      },
      { text: "Sunny in Paris." },
    ]);
    const agent = new Agent({ name: "helper", model, toolkit: [weather] });
    const events = await translateRun(agent.replyStream(userMsg("weather?")), "run-1", { theme: "dark" });
    await expectValid(events);
    expect(types(events)).toEqual([
      "RUN_STARTED",
      "STEP_STARTED",
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TOOL_CALL_START",
      "TOOL_CALL_ARGS",
      // The agent closes a model call's blocks when its stream ends; AG-UI allows them to interleave.
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_END",
      "TOOL_CALL_END",
      "STEP_FINISHED",
      "TOOL_CALL_RESULT",
      "STEP_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STEP_FINISHED",
      "STATE_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    const textStart = events.find((e) => e.type === "TEXT_MESSAGE_START")!;
    const callStart = events.find((e) => e.type === "TOOL_CALL_START")!;
    // The tool call belongs to the assistant message that said "Let me check."
    expect(callStart).toMatchObject({
      toolCallName: "get_weather",
      parentMessageId: (textStart as { messageId: string }).messageId,
    });
    const args = events.filter((e) => e.type === "TOOL_CALL_ARGS").map((e) => (e as { delta: string }).delta);
    expect(JSON.parse(args.join(""))).toEqual({ city: "Paris" });
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "c1",
      content: "sunny in Paris",
      role: "tool",
      metadata: { agentscope: { state: "success" } },
    });
    const text = events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => (e as { delta: string }).delta)
      .join("");
    expect(text).toBe("Let me check.Sunny in Paris.");
    const snapshot = events.find((e) => e.type === "STATE_SNAPSHOT") as { snapshot: Record<string, unknown> };
    expect(snapshot.snapshot).toMatchObject({ theme: "dark", agentscope: { status: "completed" } });
    const finished = events.at(-1)!;
    expect(finished).toMatchObject({
      type: "RUN_FINISHED",
      threadId: "thread-1",
      runId: "run-1",
      outcome: { type: "success" },
    });
    expect((finished as { usage: unknown[] }).usage).toHaveLength(1);
  });

  it("a confirmation ends the run with an interrupt; the resume answer continues the same reply in a new run", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c9", name: "write_note", input: { text: "hi" } }] },
      { text: "Noted." },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writeNote(log)] });
    const first = await translateRun(agent.replyStream(userMsg("note hi")));
    await expectValid(first);
    expect(first.at(-2)).toMatchObject({
      type: "STATE_SNAPSHOT",
      snapshot: { agentscope: { status: "waiting" } },
    });
    const finished = first.at(-1)!;
    expect(finished).toMatchObject({
      type: "RUN_FINISHED",
      outcome: {
        type: "interrupt",
        interrupts: [
          {
            id: "confirm:c9",
            reason: "tool_call",
            toolCallId: "c9",
            metadata: { agentscope: { toolName: "write_note", suggestedRules: ["write_note"] } },
          },
        ],
      },
    });
    expect(log).toEqual([]);

    const input = resumeInput(agent.state.replyContext!.replyId, waitingCalls(agent), [
      { interruptId: "confirm:c9", status: "resolved", payload: { approved: true } },
    ]);
    const second = await translateRun(agent.replyStream(input), "run-2");
    await expectValid(second);
    expect(log).toEqual(["hi"]);
    // No TOOL_CALL_START again: the result attaches to the call of the first run.
    expect(types(second)).toEqual([
      "RUN_STARTED",
      "TOOL_CALL_RESULT",
      "STEP_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
      "STEP_FINISHED",
      "STATE_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(second.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
      toolCallId: "c9",
      content: "wrote hi",
    });
    expect(second.at(-1)).toMatchObject({ outcome: { type: "success" } });
  });

  it("a model failure ends the run with RUN_ERROR carrying the error type", async () => {
    const model = new ScriptedModel([
      { error: new AgentScopeError({ type: "rate_limit", message: "slow down" }) },
    ]);
    const agent = new Agent({ name: "a", model });
    const events = await translateRun(agent.replyStream(userMsg("hi")));
    await expectValid(events);
    expect(events.at(-1)).toEqual({ type: "RUN_ERROR", message: "slow down", code: "rate_limit" });
    expect(events.some((e) => e.type === "RUN_FINISHED")).toBe(false);
  });

  it("a model failure mid-text closes the open message before RUN_ERROR", async () => {
    const model = new ScriptedModel([
      { text: "partial answer here", errorAfter: 2, error: { type: "upstream", message: "cut" } },
    ]);
    const agent = new Agent({ name: "a", model });
    const events = await translateRun(agent.replyStream(userMsg("hi")));
    await expectValid(events);
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "upstream" });
  });

  it("a stream that stops without REPLY_END or a pause is an error, and so is one that throws", async () => {
    const { translation, events } = startAguiRun({ threadId: "t", runId: "r" });
    events.push(
      ...translateEvent(
        translation,
        createEvent("REPLY_START", { replyId: "rp", sessionId: "s", name: "a", role: "assistant" }),
      ),
      ...translateEvent(translation, createEvent("TEXT_BLOCK_START", { replyId: "rp", blockId: "b1" })),
      ...finishAguiRun(translation),
    );
    await expectValid(events);
    expect(events.map((e) => e.type)).toEqual([
      "RUN_STARTED",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_END",
      "RUN_ERROR",
    ]);
    expect(events.at(-1)).toMatchObject({ code: "incomplete" });
    expect(finishAguiRun(translation)).toEqual([]);

    const thrown = startAguiRun({ threadId: "t", runId: "r2" });
    const out = finishAguiRun(thrown.translation, { message: "store down", code: "internal" });
    expect(out).toEqual([{ type: "RUN_ERROR", message: "store down", code: "internal" }]);
  });

  it("an interrupted reply finishes with the cancelled outcome", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "write_note", input: { text: "x" } }] },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [writeNote([])] });
    await translateRun(agent.replyStream(userMsg("note")));
    const input = resumeInput(agent.state.replyContext!.replyId, waitingCalls(agent), [
      { interruptId: "confirm:c1", status: "cancelled" },
    ]);
    expect(input.type).toBe("USER_INTERRUPT");
    const events = await translateRun(agent.replyStream(input), "run-2");
    await expectValid(events);
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "cancelled" } });
  });

  it("tool output with data becomes content parts; CUSTOM passes through; sub-agent events are left out", async () => {
    const { translation, events } = startAguiRun({ threadId: "t", runId: "r" });
    const base = { replyId: "rp" };
    const input: AgentEvent[] = [
      createEvent("REPLY_START", { ...base, sessionId: "s", name: "a", role: "assistant" }),
      createEvent("TOOL_RESULT_START", { ...base, toolCallId: "c1", toolCallName: "shot" }),
      createEvent("TOOL_RESULT_TEXT_DELTA", { ...base, toolCallId: "c1", delta: "see " }),
      createEvent("TOOL_RESULT_TEXT_DELTA", { ...base, toolCallId: "c1", delta: "image" }),
      createEvent("TOOL_RESULT_DATA_DELTA", {
        ...base,
        toolCallId: "c1",
        blockId: "d1",
        mediaType: "image/png",
        data: "iVBO",
      }),
      createEvent("TOOL_RESULT_DATA_DELTA", {
        ...base,
        toolCallId: "c1",
        blockId: "d1",
        mediaType: "image/png",
        data: "Rw==",
      }),
      createEvent("TOOL_RESULT_END", { ...base, toolCallId: "c1", state: "success" }),
      createEvent("CUSTOM", { ...base, name: "progress", value: { done: 1 } }),
      createEvent("TEXT_BLOCK_START", { ...base, blockId: "sub", source: "main/helper" }),
      createEvent("REPLY_END", { ...base, finishedReason: "completed" }),
    ];
    for (const event of input) events.push(...translateEvent(translation, event));
    events.push(...finishAguiRun(translation));
    await expectValid(events);
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({
      content: [
        { type: "text", text: "see image" },
        { type: "image", source: { type: "data", value: "iVBORw==", mimeType: "image/png" } },
      ],
    });
    expect(events.find((e) => e.type === "CUSTOM")).toMatchObject({ name: "progress", value: { done: 1 } });
    expect(events.some((e) => e.type === "TEXT_MESSAGE_START")).toBe(false);
  });
});
