import type { Citation, TextBlock, ThinkingBlock, ToolCallBlock, Usage } from "../../message/index.js";
import { newId } from "../../message/index.js";
import { ContentAssembler } from "../provider-kit/content-assembler.js";
import { providerCall, providerResult } from "../provider-kit/provider-runs.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";
import {
  isServerResult,
  SERVER_CALL_TYPES,
  serverCallData,
  serverResultOutput,
} from "./anthropic-server-tools.js";

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
  tool_use_id?: string;
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
  delta?: WireDelta & { stop_reason?: string; stop_details?: { explanation?: string } | null };
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
  /** Server tool calls (web search, code execution...) and the block each started with. */
  private readonly serverCalls = new Map<string, { call: ToolCallBlock; start: Record<string, unknown> }>();
  private readonly usage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  private stopReason: ModelStopReason = "other";
  private model: string | undefined;
  private done = false;
  /** `pause_turn`: the server paused a long tool run; the turn goes on when it is sent back. */
  private paused = false;
  /** Why the model refused (`stop_details.explanation`), shown when the refusal has no text. */
  private refusalExplanation: string | undefined;

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
        if (chunk.delta?.stop_reason) {
          this.stopReason = anthropicStopReason(chunk.delta.stop_reason);
          this.paused = chunk.delta.stop_reason === "pause_turn";
        }
        if (chunk.delta?.stop_details?.explanation)
          this.refusalExplanation = chunk.delta.stop_details.explanation;
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
        if (typeof block?.type !== "string") throw malformedChunk(PROVIDER, "a content_block", data);
        this.blocks[index] = this.serverBlock(block, data);
    }
  }

  /**
   * A server tool's call or result: kept with the block as sent, never streamed as deltas (the agent
   * does not run it). Future block types: undefined, their deltas are ignored.
   */
  private serverBlock(block: WireBlock, data: string): ToolCallBlock | undefined {
    if (SERVER_CALL_TYPES.has(block.type ?? "")) {
      if (typeof block.id !== "string" || typeof block.name !== "string")
        throw malformedChunk(PROVIDER, `a ${block.type} id and name`, data);
      const start = block as Record<string, unknown>;
      const call = providerCall(PROVIDER, block.id, block.name, "", undefined);
      this.assembler.content.push(call);
      this.serverCalls.set(block.id, { call, start });
      return call;
    }
    if (isServerResult(block)) {
      const raw = block as Record<string, unknown>;
      const id = block.tool_use_id!;
      const name = this.serverCalls.get(id)?.call.name ?? block.type!.replace(/_tool_result$/, "");
      const { output, failed } = serverResultOutput(raw);
      this.assembler.content.push(providerResult(PROVIDER, id, name, output, failed, raw));
    }
    return undefined;
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
          if (block.executedBy === undefined)
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
    for (const { call, start } of this.serverCalls.values()) {
      call.providerData = serverCallData(start, call.input);
      if (call.input === "") call.input = JSON.stringify(start.input ?? {});
    }
    const final = this.assembler.final(usage, this.stopReason, this.model);
    if (this.paused) final.continueTurn = true;
    const explanation = this.stopReason === "refusal" ? this.refusalExplanation : undefined;
    if (
      explanation !== undefined &&
      !final.content.some((block) => block.type === "text" && block.text !== "")
    ) {
      // A refusal with no text would reach the user as an empty reply: show the API's explanation,
      // marked as a refusal (the Anthropic formatter never sends it back, the model did not write it).
      final.content.push({
        type: "text",
        id: newId("blk"),
        text: explanation,
        refusal: true,
        provider: PROVIDER,
      });
    }
    return final;
  }
}
