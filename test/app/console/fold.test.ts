import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../src/agent/index.js";
import { FOLD_JS } from "../../../src/app/console/assets/fold-js.js";
import { type AgentEvent, createEvent, foldEvents, userConfirmResult } from "../../../src/event/index.js";
import { type Msg, userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";

interface PageFold {
  startReply(event: AgentEvent): Msg;
  applyEvent(msg: Msg, event: AgentEvent): Msg;
}
const pageFold = (await import(`data:text/javascript,${encodeURIComponent(FOLD_JS)}`)) as PageFold;

/** Folds like the page does: a REPLY_START starts the Msg, every later event is folded in place. */
function foldInPage(events: AgentEvent[]): Msg | undefined {
  let msg: Msg | undefined;
  for (const event of structuredClone(events)) {
    if (event.type === "REPLY_START") msg = pageFold.startReply(event);
    else if (msg) pageFold.applyEvent(msg, event);
  }
  return msg;
}

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const weather = functionTool({
  name: "get_weather",
  description: "Weather",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: async function* ({ city }) {
    yield "sunny ";
    yield `in ${city}`;
  },
});
const writeNote = functionTool({
  name: "write_note",
  description: "Writes a note",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `wrote ${text}`,
});

describe("the console's fold (a browser copy of applyEvent)", () => {
  it("rebuilds the same Msg as applyEvent and the agent for a reply with thinking, tools, a pause and its resume", async () => {
    const model = new ScriptedModel([
      {
        thinking: "let me think",
        text: "Checking.",
        toolCalls: [
          { id: "c1", name: "get_weather", input: { city: "Oslo" } },
          { id: "c2", name: "write_note", input: { text: "hi" } },
        ],
      },
      { text: "All done.", usage: { cacheReadTokens: 3 } },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [weather, writeNote] });
    const first = await collect(agent.replyStream(userMsg("go")));
    const replyId = first[0]!.replyId;
    const second = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId,
          confirmResults: [
            { confirmed: true, toolCall: { id: "c2", name: "write_note", input: '{"text":"edited"}' } },
          ],
        }),
      ),
    );
    const events = [...first, ...second];
    const page = foldInPage(events);
    expect(page).toEqual(foldEvents(events));
    expect(page).toEqual(agent.state.context.at(-1));
    expect(page?.content.map((b) => b.type)).toEqual([
      "thinking",
      "text",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "text",
    ]);
  });

  it("folds data blocks, data tool output, hints, refusals and errors like applyEvent", () => {
    const r = { replyId: "rp" };
    const events: AgentEvent[] = [
      createEvent("REPLY_START", { ...r, sessionId: "s", name: "a", role: "assistant" }),
      createEvent("DATA_BLOCK_START", { ...r, blockId: "d1", mediaType: "image/png", name: "p.png" }),
      createEvent("DATA_BLOCK_DELTA", { ...r, blockId: "d1", data: "iVBO" }),
      createEvent("DATA_BLOCK_DELTA", { ...r, blockId: "d1", data: "Rw==" }),
      createEvent("DATA_BLOCK_END", { ...r, blockId: "d1" }),
      createEvent("HINT_BLOCK", { ...r, blockId: "h1", text: "be brief" }),
      createEvent("TOOL_CALL_START", { ...r, toolCallId: "c1", toolCallName: "shot" }),
      createEvent("TOOL_CALL_DELTA", { ...r, toolCallId: "c1", delta: "{}" }),
      createEvent("TOOL_CALL_END", { ...r, toolCallId: "c1" }),
      createEvent("TOOL_RESULT_START", { ...r, toolCallId: "c1", toolCallName: "shot" }),
      createEvent("TOOL_RESULT_TEXT_DELTA", { ...r, toolCallId: "c1", delta: "see" }),
      createEvent("TOOL_RESULT_DATA_DELTA", {
        ...r,
        toolCallId: "c1",
        blockId: "o1",
        mediaType: "image/png",
        data: "AA",
      }),
      createEvent("TOOL_RESULT_DATA_DELTA", {
        ...r,
        toolCallId: "c1",
        blockId: "o1",
        mediaType: "image/png",
        data: "BB",
      }),
      createEvent("TOOL_RESULT_DATA_DELTA", {
        ...r,
        toolCallId: "c1",
        blockId: "o2",
        mediaType: "image/png",
        url: "https://x/y.png",
      }),
      createEvent("TOOL_RESULT_TEXT_DELTA", { ...r, toolCallId: "c1", delta: " more" }),
      createEvent("TOOL_RESULT_END", { ...r, toolCallId: "c1", state: "success" }),
      createEvent("TOOL_CALL_START", { ...r, toolCallId: "c2", toolCallName: "rm" }),
      createEvent("REQUIRE_USER_CONFIRM", {
        ...r,
        toolCalls: [{ type: "tool_call", id: "c2", name: "rm", input: "{}", state: "pending" }],
      }),
      createEvent("USER_CONFIRM_RESULT", {
        ...r,
        confirmResults: [{ confirmed: false, toolCall: { id: "c2", name: "rm", input: "{}" } }],
      }),
      createEvent("TOOL_RESULT_START", { ...r, toolCallId: "c2", toolCallName: "rm" }),
      createEvent("TOOL_RESULT_END", { ...r, toolCallId: "c2", state: "denied" }),
      createEvent("MODEL_CALL_END", {
        ...r,
        modelName: "m",
        inputTokens: 5,
        outputTokens: 7,
        cacheWriteTokens: 2,
      }),
      createEvent("TEXT_BLOCK_DELTA", { replyId: "other", blockId: "x", delta: "ignored" }),
      createEvent("REPLY_END", {
        ...r,
        finishedReason: "error",
        error: { type: "upstream", message: "boom" },
      }),
    ];
    expect(foldInPage(events)).toEqual(foldEvents(events));
  });
});
