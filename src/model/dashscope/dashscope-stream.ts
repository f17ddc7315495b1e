import {
  type AgentScopeError,
  type ErrorType,
  newId,
  type TextBlock,
  type ThinkingBlock,
  type ToolCallBlock,
  type Usage,
} from "../../message/index.js";
import { ContentAssembler } from "../provider-kit/content-assembler.js";
import { malformedChunk, ProviderError, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";

const PROVIDER = "dashscope";

interface WireToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/** The documented fields of one streamed DashScope result (all optional: checked as read). */
interface WireChunk {
  code?: string;
  message?: string;
  output?: {
    choices?: Array<{
      finish_reason?: string | null;
      message?: {
        content?: string | Array<{ text?: string }>;
        reasoning_content?: string;
        tool_calls?: WireToolCall[];
      };
    }>;
  };
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
  };
}

/** DashScope `finish_reason` → ModelStopReason; undefined while generating (`"null"`). */
export function dashScopeStopReason(reason: unknown): ModelStopReason | undefined {
  switch (reason) {
    case "stop":
      return "stop";
    case "tool_calls":
      return "tool_calls";
    case "length":
      return "length";
    case null:
    case undefined:
    case "null":
      return undefined;
    default:
      return "other";
  }
}

/** A DashScope error code (`InvalidApiKey`, `Throttling.RateQuota`, ...) as an error kind. */
export function dashScopeErrorType(code: string): ErrorType {
  if (/ApiKey|Unauthorized|AccessDenied.Unpurchased/i.test(code)) return "authentication";
  if (/AccessDenied/i.test(code)) return "permission";
  if (/Throttling|RateQuota|Arrearage/i.test(code)) return "rate_limit";
  if (/InternalError|ServiceUnavailable|Timeout/i.test(code)) return "upstream";
  if (/ModelNotFound|NotFound/i.test(code)) return "not_found";
  return "invalid_request";
}

function streamError(chunk: WireChunk): AgentScopeError {
  const type = dashScopeErrorType(chunk.code ?? "");
  return new ProviderError({
    type,
    message: `dashscope reported an error in the stream: ${chunk.code}: ${chunk.message ?? "no details"}`,
    source: PROVIDER,
  });
}

/**
 * DashScope native SSE (`X-DashScope-SSE: enable`, incremental_output) → ChatChunks: content,
 * `reasoning_content` as thinking, tool calls in fragments keyed by index, cumulative usage.
 */
export class DashScopeStreamParser implements WireParser {
  private readonly assembler = new ContentAssembler();
  private text: TextBlock | undefined;
  private thinking: ThinkingBlock | undefined;
  private readonly calls: ToolCallBlock[] = [];
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private stopReason: ModelStopReason | undefined;

  onEvent(data: string, event: string | undefined, out: ChatChunk[]): void {
    let chunk: WireChunk | null;
    try {
      chunk = JSON.parse(data) as WireChunk | null;
    } catch {
      throw malformedChunk(PROVIDER, "valid JSON", data);
    }
    if (chunk === null || typeof chunk !== "object") throw malformedChunk(PROVIDER, "an object", data);
    if (event === "error" || (chunk.code && chunk.output === undefined)) throw streamError(chunk);
    if (chunk.usage) this.readUsage(chunk.usage);
    const choice = chunk.output?.choices?.[0];
    if (choice === undefined) {
      if (chunk.output === undefined) throw malformedChunk(PROVIDER, "`output`", data);
      return;
    }
    const message = choice.message;
    if (message?.reasoning_content) {
      if (this.thinking === undefined || this.text !== undefined) {
        this.thinking = this.assembler.thinking(PROVIDER);
        this.text = undefined;
      }
      this.thinking.thinking += message.reasoning_content;
      out.push({ type: "thinking", blockId: this.thinking.id, delta: message.reasoning_content });
    }
    const content = message?.content;
    const text = typeof content === "string" ? content : Array.isArray(content) ? joinText(content) : "";
    if (text !== "") {
      this.text ??= this.assembler.text();
      this.text.text += text;
      out.push({ type: "text", blockId: this.text.id, delta: text });
    }
    if (Array.isArray(message?.tool_calls))
      for (const call of message.tool_calls) this.onToolCall(call, data, out);
    const reason = dashScopeStopReason(choice.finish_reason);
    if (reason !== undefined) this.stopReason = reason;
  }

  private onToolCall(wire: WireToolCall, data: string, out: ChatChunk[]): void {
    const index = wire.index ?? this.calls.length;
    let call = this.calls[index];
    const args = wire.function?.arguments ?? "";
    if (call === undefined) {
      const name = wire.function?.name;
      if (!name) throw malformedChunk(PROVIDER, "a tool call name on its first fragment", data);
      call = this.assembler.toolCall(wire.id || newId("call"), name);
      this.calls[index] = call;
      this.text = undefined;
      call.input = args;
      out.push({ type: "tool_call", blockId: call.id, name, delta: args });
      return;
    }
    if (args !== "") {
      call.input += args;
      out.push({ type: "tool_call", blockId: call.id, delta: args });
    }
  }

  private readUsage(usage: NonNullable<WireChunk["usage"]>): void {
    this.usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached) this.usage.cacheReadTokens = cached;
  }

  finish(): ChatFinal {
    if (this.stopReason === undefined) throw streamCut(PROVIDER);
    return this.assembler.final(this.usage, this.stopReason);
  }
}

function joinText(items: Array<{ text?: string }>): string {
  let text = "";
  for (const item of items) if (typeof item.text === "string") text += item.text;
  return text;
}
