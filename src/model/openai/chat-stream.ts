import { newId, type Usage } from "../../message/index.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";

type Slot =
  | { type: "text"; id: string; text: string; refusal?: true }
  | { type: "thinking"; id: string; text: string }
  | { type: "tool_call"; id: string; name: string; input: string };

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChatCompletionChunk {
  model?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChunkToolCall[];
    };
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
  error?: unknown;
}

export function mapChatFinishReason(reason: string | undefined, hasToolCalls: boolean): ModelStopReason {
  if (hasToolCalls && (reason === "tool_calls" || reason === "function_call" || reason === "stop"))
    return "tool_calls";
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      return hasToolCalls ? "tool_calls" : "other";
  }
}

/**
 * Chat Completions SSE → ChatChunks: `choices[0].delta` content, reasoning_content (or `reasoning`) and
 * tool_calls by index; one text and one thinking block per response, block id = tool call id for calls.
 * Complete once `[DONE]` or a finish_reason arrived.
 */
export class OpenAIChatStreamParser implements WireParser {
  private readonly slots: Slot[] = [];
  private text: Extract<Slot, { type: "text" }> | undefined;
  private refusal: Extract<Slot, { type: "text" }> | undefined;
  private thinking: Extract<Slot, { type: "thinking" }> | undefined;
  private readonly calls: Array<Extract<Slot, { type: "tool_call" }>> = [];
  private finishReason: string | undefined;
  private choiceIndex: number | undefined;
  private done = false;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private model: string | undefined;

  constructor(private readonly provider: string) {}

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let chunk: ChatCompletionChunk;
    try {
      chunk = JSON.parse(data) as ChatCompletionChunk;
    } catch {
      throw malformedChunk(this.provider, "valid JSON", data);
    }
    if (chunk.error !== undefined) throw errorFromBody(chunk, { provider: this.provider });
    if (!Array.isArray(chunk.choices)) throw malformedChunk(this.provider, "a `choices` array", data);
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.readUsage(chunk.usage);
    const choice = chunk.choices[0];
    if (choice === undefined) return;
    // With `n` > 1 the choices stream interleaved, one per chunk: the reply is the first one seen.
    this.choiceIndex ??= choice.index ?? 0;
    if ((choice.index ?? 0) !== this.choiceIndex) return;
    const delta = choice.delta;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) {
        if (this.thinking === undefined) {
          this.thinking = { type: "thinking", id: newId("blk"), text: "" };
          this.slots.push(this.thinking);
        }
        this.thinking.text += reasoning;
        out.push({ type: "thinking", blockId: this.thinking.id, delta: reasoning });
      }
      if (delta.content) {
        if (this.text === undefined) {
          this.text = { type: "text", id: newId("blk"), text: "" };
          this.slots.push(this.text);
        }
        this.text.text += delta.content;
        out.push({ type: "text", blockId: this.text.id, delta: delta.content });
      }
      if (delta.refusal) {
        // A refusal streams as text (the user sees it) in its own block marked `refusal`.
        if (this.refusal === undefined) {
          this.refusal = { type: "text", id: newId("blk"), text: "", refusal: true };
          this.slots.push(this.refusal);
        }
        this.refusal.text += delta.refusal;
        out.push({ type: "text", blockId: this.refusal.id, delta: delta.refusal });
      }
      if (delta.tool_calls) this.readToolCalls(delta.tool_calls, out);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  private readToolCalls(toolCalls: ChunkToolCall[], out: ChatChunk[]): void {
    for (let i = 0; i < toolCalls.length; i++) {
      const fragment = toolCalls[i] as ChunkToolCall;
      const index = fragment.index ?? i;
      const args = fragment.function?.arguments ?? "";
      let call = this.calls[index];
      if (call === undefined) {
        call = {
          type: "tool_call",
          id: fragment.id || newId("call"),
          name: fragment.function?.name ?? "",
          input: "",
        };
        this.calls[index] = call;
        this.slots.push(call);
        call.input += args;
        out.push({ type: "tool_call", blockId: call.id, name: call.name, delta: args });
        continue;
      }
      if (!call.name && fragment.function?.name) call.name = fragment.function.name;
      if (args === "") continue;
      call.input += args;
      out.push({ type: "tool_call", blockId: call.id, delta: args });
    }
  }

  private readUsage(usage: NonNullable<ChatCompletionChunk["usage"]>): void {
    this.usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached) this.usage.cacheReadTokens = cached;
  }

  finish(): ChatFinal {
    if (!this.done && this.finishReason === undefined) throw streamCut(this.provider);
    const content: ChatFinal["content"] = this.slots.map((slot) => {
      if (slot.type === "text") {
        return slot.refusal
          ? { type: "text", id: slot.id, text: slot.text, refusal: true }
          : { type: "text", id: slot.id, text: slot.text };
      }
      if (slot.type === "thinking")
        return { type: "thinking", id: slot.id, thinking: slot.text, provider: this.provider };
      return { type: "tool_call", id: slot.id, name: slot.name, input: slot.input, state: "pending" };
    });
    const final: ChatFinal = {
      type: "final",
      content,
      usage: this.usage,
      stopReason:
        this.refusal !== undefined && this.calls.length === 0
          ? "refusal"
          : mapChatFinishReason(this.finishReason, this.calls.length > 0),
    };
    if (this.model) final.model = this.model;
    return final;
  }
}
