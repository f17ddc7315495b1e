import { afterEach, describe, expect, it } from "vitest";
import { CUT_OFF_NOTE } from "../../src/agent/index.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { type AgentEvent, createEvent, foldEvents } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { crashModel, recordTool } from "./fixtures/agents.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function setup(resumeOnRecovery = false) {
  const backend = memoryBackend();
  const runtime = new ServiceRuntime({
    backend,
    agents: [{ name: "main", model: crashModel(), toolkit: [recordTool()] }],
    resumeOnRecovery,
  });
  runtimes.push(runtime);
  return { backend, runtime };
}

/**
 * What a run that died mid-reply leaves behind: the log up to the crash (a text block and a tool call
 * still open, a tool result running) and the state saved at its last checkpoint (older than the log).
 */
async function leaveCutOffReply(backend: ServiceBackend, sessionId: string) {
  const replyId = "reply_dead";
  const e = <T extends AgentEvent["type"]>(type: T, init: object) =>
    createEvent(type, { replyId, ...init } as never) as AgentEvent;
  const events: AgentEvent[] = [
    e("REPLY_START", { sessionId, name: "main", role: "assistant" }),
    e("TOOL_CALL_START", { toolCallId: "c1", toolCallName: "record" }),
    e("TOOL_CALL_DELTA", { toolCallId: "c1", delta: '{"note":"a"}' }),
    e("TOOL_CALL_END", { toolCallId: "c1" }),
    e("TOOL_RESULT_START", { toolCallId: "c1", toolCallName: "record" }),
    e("TOOL_RESULT_TEXT_DELTA", { toolCallId: "c1", delta: "half done" }),
    e("THINKING_BLOCK_START", { blockId: "t1" }),
    e("THINKING_BLOCK_DELTA", { blockId: "t1", delta: "hmm" }),
    e("TEXT_BLOCK_START", { blockId: "b1" }),
    e("TEXT_BLOCK_DELTA", { blockId: "b1", delta: "Streamed before the crash" }),
    e("TOOL_CALL_START", { toolCallId: "c2", toolCallName: "record" }),
    e("TOOL_CALL_DELTA", { toolCallId: "c2", delta: '{"no' }),
  ];
  await backend.events.append(sessionId, events);
  const stored = (await backend.store.load(sessionId))!;
  const state = stored.state;
  state.context.push(userMsg("go"), foldEvents(events.slice(0, 4))!);
  state.replyContext = { replyId, iteration: 1 };
  await backend.store.save(sessionId, state, { expectedVersion: stored.version });
  return { replyId, events };
}

describe("closing a reply whose run died", () => {
  it("ends every open block and call in the log, keeps what was streamed, and the stored Msg is the fold of the log", async () => {
    const { backend, runtime } = setup();
    const { sessionId } = await runtime.createSession("local");
    const { replyId } = await leaveCutOffReply(backend, sessionId);

    const status = await runtime.status("local", sessionId);
    expect(status).toMatchObject({ running: false, pendingToolCalls: [] });
    expect(status.replyId).toBeUndefined();

    const logged = (await backend.events.read(sessionId, 0, 100)).map((l) => l.event);
    const closing = logged.slice(12).map((event) => event.type);
    expect(closing).toEqual([
      "THINKING_BLOCK_END",
      "TEXT_BLOCK_END",
      "TOOL_CALL_END",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_END",
      "TOOL_RESULT_START",
      "TOOL_RESULT_TEXT_DELTA",
      "TOOL_RESULT_END",
      "REPLY_END",
    ]);
    expect(logged.at(-1)).toMatchObject({ type: "REPLY_END", replyId, finishedReason: "interrupted" });
    const messages = await runtime.messages("local", sessionId);
    const msg = messages.at(-1)!;
    expect(foldEvents(logged)).toEqual(msg);
    expect(msg.content.find((b) => b.type === "text")).toMatchObject({ text: "Streamed before the crash" });
    const results = msg.content.filter((b) => b.type === "tool_result");
    expect(results.map((r) => [r.id, r.state])).toEqual([
      ["c1", "interrupted"],
      ["c2", "interrupted"],
    ]);
    expect(results[0]!.output).toBe(`half done\n${CUT_OFF_NOTE}`);

    // Nothing left to close: asking again changes nothing.
    await runtime.status("local", sessionId);
    expect(await backend.events.lastSeq(sessionId)).toBe(logged.length);
  });

  it("with resumeOnRecovery, a new reply continues at once and the model sees the interrupted results", async () => {
    const { backend, runtime } = setup(true);
    const { sessionId } = await runtime.createSession("local");
    await leaveCutOffReply(backend, sessionId);
    expect(await runtime.recover(sessionId)).toBe("closed");
    // Wait for the resumed reply to end (it is a run like any other).
    for (let i = 0; i < 200 && (await runtime.status("local", sessionId)).running; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const messages = await runtime.messages("local", sessionId);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", finishedReason: "completed" });
    expect(messages.at(-1)!.content).toContainEqual(
      expect.objectContaining({ type: "text", text: "The tool was interrupted, so I stopped." }),
    );
  });

  it("leaves a reply paused for an answer alone", async () => {
    const { backend, runtime } = setup();
    const { sessionId } = await runtime.createSession("local");
    const run = await runtime.startReply("local", sessionId, [userMsg("record it")]);
    await run.done;
    const last = await backend.events.lastSeq(sessionId);
    expect(await runtime.recover(sessionId)).toBe("idle");
    expect(await runtime.status("local", sessionId)).toMatchObject({ waitingFor: "user_confirm" });
    expect(await backend.events.lastSeq(sessionId)).toBe(last);
  });
});
