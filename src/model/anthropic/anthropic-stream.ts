import type { Citation, TextBlock, ThinkingBlock, ToolCallBlock, Usage } from "../../message/index.js";
import { ContentAssembler } from "../provider-kit/content-assembler.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";

const PROVIDER = "anthropic";

/** Anthropic `stop_reason` → ModelStopReason. */
export function anthropicStopReason(reason: unknown): ModelStopReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}

interface WireUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

type OpenBlock = TextBlock | ThinkingBlock | ToolCallBlock | undefined;

/** The documented fields of a streamed content block start and delta (all optional: checked as read). */
interface WireBlock {
  type?: string;
  text?: string;
  thinking?: string;
  signature?: string;
  data?: string;
  id?: string;
  name?: string;
}
interface WireCitation {
  type?: string;
  cited_text?: string;
  url?: string;
  title?: string | null;
  document_title?: string | null;
}
interface WireDelta {
  type?: string;
  citation?: WireCitation;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
}
interface WireEvent {
  type?: string;
  index?: number;
  content_block?: WireBlock;
  delta?: WireDelta & { stop_reason?: string };
  message?: { model?: string; usage?: WireUsage };
  usage?: WireUsage;
}

/** A web search result, document or page location as a Citation. */
function citationOf(wire: WireCitation): Citation {
  const citation: Citation = {};
  if (wire.url) citation.url = wire.url;
  const title = wire.title ?? wire.document_title;
  if (title) citation.title = title;
  if (wire.cited_text) citation.citedText = wire.cited_text;
  return citation;
}

/**
 * Anthropic Messages SSE → ChatChunks. Blocks are keyed by their `index`; usage.inputTokens counts
 * every prompt token (uncached + cache read + cache write), with the cache parts reported apart.
 */
export class AnthropicStreamParser implements WireParser {
  private readonly assembler = new ContentAssembler();
  private readonly blocks: OpenBlock[] = [];
  private readonly usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  private stopReason: ModelStopReason = "other";
  private model: string | undefined;
  private done = false;

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    let chunk: WireEvent | null;
    try {
      chunk = JSON.parse(data) as WireEvent | null;
    } catch {
      throw malformedChunk(PROVIDER, "valid JSON", data);
    }
    switch (chunk?.type) {
      case "content_block_delta":
        this.onDelta(chunk.index ?? 0, chunk.delta, data, out);
        return;
      case "content_block_start":
        this.onStart(chunk.index ?? 0, chunk.content_block, data, out);
        return;
      case "content_block_stop":
      case "ping":
        return;
      case "message_start":
        this.model = chunk.message?.model;
        this.addUsage(chunk.message?.usage);
        return;
      case "message_delta":
        if (chunk.delta?.stop_reason) this.stopReason = anthropicStopReason(chunk.delta.stop_reason);
        this.addUsage(chunk.usage);
        return;
      case "message_stop":
        this.done = true;
        return;
      case "error":
        throw errorFromBody(chunk, { provider: PROVIDER });
      default:
        if (typeof chunk?.type !== "string") throw malformedChunk(PROVIDER, "a `type`", data);
    }
  }

  private onStart(index: number, block: WireBlock | undefined, data: string, out: ChatChunk[]): void {
    switch (block?.type) {
      case "text": {
        const text = this.assembler.text();
        this.blocks[index] = text;
        if (block.text) this.appendText(text, block.text, out);
        return;
      }
      case "thinking": {
        const thinking = this.assembler.thinking(PROVIDER);
        this.blocks[index] = thinking;
        if (block.signature) thinking.signature = block.signature;
        if (block.thinking) this.appendThinking(thinking, block.thinking, out);
        return;
      }
      case "redacted_thinking": {
        const thinking = this.assembler.thinking(PROVIDER);
        thinking.redactedData = block.data ?? "";
        this.blocks[index] = thinking;
        return;
      }
      case "tool_use": {
        if (typeof block.id !== "string" || typeof block.name !== "string")
          throw malformedChunk(PROVIDER, "a tool_use id and name", data);
        const call = this.assembler.toolCall(block.id, block.name);
        this.blocks[index] = call;
        out.push({ type: "tool_call", blockId: call.id, name: call.name, delta: "" });
        return;
      }
      default:
        // Server tools and future block types: not ours to run; their deltas are ignored.
        if (typeof block?.type !== "string") throw malformedChunk(PROVIDER, "a content_block", data);
        this.blocks[index] = undefined;
    }
  }

  private onDelta(index: number, delta: WireDelta | undefined, data: string, out: ChatChunk[]): void {
    const block = this.blocks[index];
    switch (delta?.type) {
      case "text_delta":
        if (block?.type === "text" && delta.text) this.appendText(block, delta.text, out);
        return;
      case "thinking_delta":
        if (block?.type === "thinking" && delta.thinking) this.appendThinking(block, delta.thinking, out);
        return;
      case "signature_delta":
        if (block?.type === "thinking" && delta.signature)
          block.signature = (block.signature ?? "") + delta.signature;
        return;
      case "citations_delta":
        if (block?.type === "text" && delta.citation) {
          block.citations = [...(block.citations ?? []), citationOf(delta.citation)];
        }
        return;
      case "input_json_delta":
        if (block?.type === "tool_call" && delta.partial_json) {
          block.input += delta.partial_json;
          out.push({ type: "tool_call", blockId: block.id, delta: delta.partial_json });
        }
        return;
      default:
        if (typeof delta?.type !== "string") throw malformedChunk(PROVIDER, "a delta", data);
    }
  }

  private appendText(block: TextBlock, text: string, out: ChatChunk[]): void {
    block.text += text;
    out.push({ type: "text", blockId: block.id, delta: text });
  }

  private appendThinking(block: ThinkingBlock, text: string, out: ChatChunk[]): void {
    block.thinking += text;
    out.push({ type: "thinking", blockId: block.id, delta: text });
  }

  /** Anthropic sends cumulative counts: the latest non-null value wins. */
  private addUsage(usage: WireUsage | undefined): void {
    if (!usage) return;
    if (usage.input_tokens != null) this.usage.input_tokens = usage.input_tokens;
    if (usage.output_tokens != null) this.usage.output_tokens = usage.output_tokens;
    if (usage.cache_read_input_tokens != null)
      this.usage.cache_read_input_tokens = usage.cache_read_input_tokens;
    if (usage.cache_creation_input_tokens != null)
      this.usage.cache_creation_input_tokens = usage.cache_creation_input_tokens;
  }

  finish(): ChatFinal {
    if (!this.done) throw streamCut(PROVIDER);
    const u = this.usage;
    const usage: Usage = {
      inputTokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
      outputTokens: u.output_tokens,
    };
    if (u.cache_read_input_tokens > 0) usage.cacheReadTokens = u.cache_read_input_tokens;
    if (u.cache_creation_input_tokens > 0) usage.cacheWriteTokens = u.cache_creation_input_tokens;
    return this.assembler.final(usage, this.stopReason, this.model);
  }
}
