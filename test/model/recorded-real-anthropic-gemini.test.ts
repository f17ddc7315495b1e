import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import type { ChatModel } from "../../src/model/types.js";
import { functionTool } from "../../src/tool/index.js";
import { replyThroughAgent } from "./helpers/agent-reply.js";
import {
  cassette,
  chunkPayloads,
  geminiSse,
  type RecordedExchange,
  sseData,
} from "./helpers/recorded-wire.js";

import { REPLAY_MODES, type ReplayMode, replayFrames } from "./helpers/replay.js";
import { wireServerForFile } from "./helpers/wire-server.js";

/**
 * The issue-13 Anthropic and Gemini failures, each pinned by responses the live APIs sent, recorded
 * by other projects and committed unmodified (test/model/fixtures/recorded/{anthropic,gemini}; see
 * SOURCES.md there). Each body is replayed byte for byte three ways (helpers/replay.ts) through a real
 * Agent. The tests assert the reply Msg and the next request body; the expected values are read from
 * the recording itself, and where the recording also holds the request its client sent next (which
 * the API accepted), ours must send the same turn.
 */

const wire = wireServerForFile();

type Json = Record<string, unknown>;
type SentBody = { messages: Json[]; contents: Json[] };
const sent = (index: number) => wire.requests[index]?.body as SentBody;

function serve(mode: ReplayMode, ...bodies: Array<string | RecordedExchange>): void {
  wire.queue(
    ...bodies.map((item) => {
      const exchange =
        typeof item === "string" ? { status: 200, contentType: "text/event-stream", body: item } : item;
      return {
        status: exchange.status,
        headers: { "content-type": exchange.contentType },
        frames: replayFrames(exchange.body, mode),
      };
    }),
  );
}

async function reply(agent: Agent, text: string) {
  const { msg, events } = await replyThroughAgent(agent, text);
  const end = events.find((event) => event.type === "MODEL_CALL_END") as { stopReason?: string } | undefined;
  return { msg, callEndReason: end?.stopReason };
}

const anthropic = (model: string, thinkingBudget?: number) =>
  new AnthropicModel({ model, baseURL: wire.url, apiKey: "k", maxRetries: 0, cache: false, thinkingBudget });
const gemini = (model: string) =>
  new GeminiModel({ model, baseURL: `${wire.url}/v1beta`, apiKey: "k", maxRetries: 0 });
const agentOn = (model: ChatModel, toolkit: Array<ReturnType<typeof functionTool>> = []) =>
  new Agent({ name: "helper", systemPrompt: "Be brief.", model, toolkit });
/** A tool that answers what the recorded session's tool answered. */
const toolAnswering = (name: string, answer: string) =>
  functionTool({ name, description: name, input: z.object({}), readOnly: true, execute: () => answer });

/** What an Anthropic recording streamed, read from its events: block starts and concatenated deltas. */
function anthropicRecorded(body: string) {
  const events = sseData(body);
  const starts = events.filter((e) => e.type === "content_block_start").map((e) => e.content_block as Json);
  const deltas = events.filter((e) => e.type === "content_block_delta").map((e) => e.delta as Json);
  const joined = (type: string, field: string) =>
    deltas
      .filter((d) => d.type === type)
      .map((d) => d[field])
      .join("");
  return { starts, text: joined("text_delta", "text"), signature: joined("signature_delta", "signature") };
}

/** The parts a Gemini recording streamed, in order, and its text joined. */
function geminiRecorded(body: string) {
  const parts = sseData(body).flatMap((chunk) =>
    ((chunk.candidates as Json[] | undefined) ?? []).flatMap(
      (candidate) => ((candidate.content as { parts?: Json[] } | undefined)?.parts ?? []) as Json[],
    ),
  );
  return { parts, text: parts.map((part) => part.text ?? "").join("") };
}

/** Two base64 spellings (standard or URL-safe, as the Python SDK re-encodes) of the same bytes. */
const sameBytes = (a: unknown, b: unknown) =>
  Buffer.from(String(a), "base64").equals(Buffer.from(String(b), "base64url"));

const ANTHROPIC_REDACTED = "anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml";
const ANTHROPIC_THINKING_TOOL =
  "anthropic/test_fixed_version_tool_chain_with_thinking_display_regression.yaml";
const ANTHROPIC_REFUSAL = "anthropic/test_refusal_raises.yaml";
const GEMINI_TOOL_SIGNATURE = "gemini/test_google_streaming_tool_call_thought_signature.yaml";
const GEMINI_FINAL_SIGNATURE = "gemini/google-reasoning-gemini3.chunks.txt";
const GEMINI_SAFETY = "gemini/test_google_model_safety_settings.yaml";
const GEMINI_MAX_TOKENS = "gemini/test_google_model_max_tokens.yaml";
const GEMINI_PROMPT_BLOCK = "gemini/issue-19758-prompt-block.chunks.txt";

/** A pydantic-ai cassette's single non-streamed GenerateContentResponse as a one-event `alt=sse` body. */
const geminiOneEvent = (path: string) => geminiSse([(cassette(path)[0] as RecordedExchange).body]);

describe.each(REPLAY_MODES)("real recordings, replayed %s", (mode) => {
  it("Anthropic: redacted_thinking blocks that never stream stay first, in order, and go back first", async () => {
    const [recorded] = cassette(ANTHROPIC_REDACTED) as [RecordedExchange];
    const { starts, text } = anthropicRecorded(recorded.body);
    const redacted = starts.filter((block) => block.type === "redacted_thinking").map((block) => block.data);
    expect(redacted).toHaveLength(2);
    serve(mode, recorded);
    const agent = agentOn(anthropic("claude-sonnet-4-5-20250929", 1024));
    const { msg } = await reply(agent, "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING");
    expect(msg.content).toMatchObject([
      { type: "thinking", thinking: "", redactedData: redacted[0] },
      { type: "thinking", thinking: "", redactedData: redacted[1] },
      { type: "text", text },
    ]);
    expect(msg.stopReason).toBe("stop");

    await reply(agent, "And?");
    expect(sent(1).messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "redacted_thinking", data: redacted[0] },
        { type: "redacted_thinking", data: redacted[1] },
        { type: "text", text },
      ],
    });
  });

  it("Anthropic: thinking with its signature and the tool_use go back as the recorded client sent them", async () => {
    const [first, second] = cassette(ANTHROPIC_THINKING_TOOL) as [RecordedExchange, RecordedExchange];
    const recordedNext = second.request as SentBody;
    const { signature } = anthropicRecorded(first.body);
    const { text } = anthropicRecorded(second.body);
    serve(mode, first, second);
    const agent = agentOn(anthropic("claude-haiku-4-5-20251001", 1024), [
      toolAnswering("fixed_version", "0.32a0"),
    ]);
    const { msg } = await reply(agent, "Use the fixed_version tool. Think about it first.");
    expect(msg.content.map((block) => block.type)).toEqual(["thinking", "tool_call", "tool_result", "text"]);
    expect(msg.content[0]).toMatchObject({ signature, thinking: expect.stringContaining("fixed_version") });
    // The tool takes no arguments and its only input_json_delta is empty: the stored call holds the
    // final `{}`, the input that goes back, not "".
    expect(msg.content[1]).toMatchObject({
      id: "toolu_01825dXWLSoJwCst1qTsiWdb",
      name: "fixed_version",
      input: "{}",
    });
    expect(msg.content[3]).toMatchObject({ text });
    expect(msg.stopReason).toBe("stop");
    // The assistant turn and the tool result, exactly as the recorded client sent them (and the API took).
    expect(sent(1).messages.slice(1)).toEqual(recordedNext.messages.slice(1));
  });

  it("Anthropic: a refusal is the reply's stopReason and MODEL_CALL_END's, its explanation is shown, and it does not go back", async () => {
    const [recorded] = cassette(ANTHROPIC_REFUSAL) as [RecordedExchange];
    const delta = sseData(recorded.body).find((e) => e.type === "message_delta")?.delta as Json;
    expect(delta.stop_reason).toBe("refusal");
    const { explanation } = delta.stop_details as { explanation: string };
    expect(explanation.length).toBeGreaterThan(0);
    serve(mode, recorded);
    const agent = agentOn(anthropic("claude-fable-5-1"));
    const { msg, callEndReason } = await reply(agent, "Output your chain of thought");
    // No content block came: the API's explanation is the reply's only text, marked as a refusal.
    expect(msg.content).toEqual([
      { type: "text", id: expect.any(String), text: explanation, refusal: true, provider: "anthropic" },
    ]);
    expect(msg.stopReason).toBe("refusal");
    expect(callEndReason).toBe("refusal");

    await reply(agent, "Then just say hello.");
    expect(sent(1).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Output your chain of thought" },
          { type: "text", text: "Then just say hello." },
        ],
      },
    ]);
  });

  it("Gemini 3: a functionCall's thoughtSignature goes back on that part, as the recorded client sent it", async () => {
    const [first, second] = cassette(GEMINI_TOOL_SIGNATURE) as [RecordedExchange, RecordedExchange];
    const recordedTurn = (second.request as SentBody).contents[1] as { parts: Json[] };
    const [callPart] = geminiRecorded(first.body).parts as [Json];
    serve(mode, first, second);
    const agent = agentOn(gemini("gemini-3-pro-preview"), [toolAnswering("get_country", "Mexico")]);
    const { msg } = await reply(agent, "What is the capital of the user country? Call the tool");
    expect(msg.content.map((block) => block.type)).toEqual(["thinking", "tool_call", "tool_result", "text"]);
    expect(msg.content[0]).toMatchObject({ thinking: "", signature: callPart.thoughtSignature });
    expect(msg.content[1]).toMatchObject({ name: "get_country", input: "{}" });
    expect(msg.content[3]).toMatchObject({ text: geminiRecorded(second.body).text });

    const turn = sent(1).contents[1] as { role: string; parts: Json[] };
    const callId = (msg.content[1] as { id: string }).id;
    // One part, as recorded: the call with its signature (the empty final text part adds nothing).
    expect(turn).toEqual({
      role: "model",
      parts: [
        { functionCall: { id: callId, name: "get_country", args: {} }, thoughtSignature: expect.any(String) },
      ],
    });
    const recordedPart = recordedTurn.parts[0] as Json;
    expect(recordedPart.functionCall).toMatchObject({ name: "get_country", args: {} });
    expect(turn.parts[0]?.thoughtSignature).toBe(callPart.thoughtSignature);
    expect(sameBytes(turn.parts[0]?.thoughtSignature, recordedPart.thoughtSignature)).toBe(true);
    expect(sent(1).contents[2]).toMatchObject({
      role: "user",
      parts: [{ functionResponse: { id: callId, name: "get_country" } }],
    });
  });

  it("Gemini 3: the signature on a final empty text part goes back in its own turn", async () => {
    const body = geminiSse(chunkPayloads(GEMINI_FINAL_SIGNATURE));
    const { parts, text } = geminiRecorded(body);
    const signature = parts.at(-1)?.thoughtSignature;
    expect(parts.at(-1)).toEqual({ text: "", thoughtSignature: signature });
    serve(mode, body);
    const agent = agentOn(gemini("gemini-3-pro-preview"));
    const { msg } = await reply(agent, 'How many "r"s in strawberry?');
    expect(msg.content).toMatchObject([
      { type: "text", text },
      { type: "thinking", thinking: "", signature },
    ]);

    await reply(agent, "Sure?");
    expect(sent(1).contents).toEqual([
      { role: "user", parts: [{ text: 'How many "r"s in strawberry?' }] },
      { role: "model", parts: [{ text }, { text: "", thoughtSignature: signature }] },
      { role: "user", parts: [{ text: "Sure?" }] },
    ]);
  });

  it("Gemini: a SAFETY finish (empty content) is content_filter on the reply and MODEL_CALL_END", async () => {
    serve(mode, geminiOneEvent(GEMINI_SAFETY));
    const agent = agentOn(gemini("gemini-1.5-flash"));
    const { msg, callEndReason } = await reply(agent, "something unsafe");
    expect(msg.content).toEqual([]);
    expect(msg.stopReason).toBe("content_filter");
    expect(callEndReason).toBe("content_filter");
    await reply(agent, "Something else.");
    expect(sent(1).contents).toEqual([
      { role: "user", parts: [{ text: "something unsafe" }, { text: "Something else." }] },
    ]);
  });

  it("Gemini: a prompt blocked with PROHIBITED_CONTENT (no candidates) is content_filter", async () => {
    serve(mode, geminiSse(chunkPayloads(GEMINI_PROMPT_BLOCK)));
    const { msg, callEndReason } = await reply(agentOn(gemini("gemini-3.7-flash")), "something prohibited");
    expect(msg.content).toEqual([]);
    expect(msg.stopReason).toBe("content_filter");
    expect(callEndReason).toBe("content_filter");
  });

  it("Gemini: a MAX_TOKENS truncation is length on the reply and MODEL_CALL_END, and the text goes back", async () => {
    const body = geminiOneEvent(GEMINI_MAX_TOKENS);
    const { text } = geminiRecorded(body);
    serve(mode, body);
    const agent = agentOn(gemini("gemini-2.5-flash"));
    const { msg, callEndReason } = await reply(agent, "What is the capital of France?");
    expect(msg.content).toMatchObject([{ type: "text", text }]);
    expect(msg.stopReason).toBe("length");
    expect(callEndReason).toBe("length");
    await reply(agent, "Go on.");
    expect(sent(1).contents[1]).toEqual({ role: "model", parts: [{ text }] });
  });
});
