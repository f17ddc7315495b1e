import { newId, type TextBlock, type ThinkingBlock, type Usage } from "../../message/index.js";
import { ContentAssembler, stopReasonWithTools } from "../provider-kit/content-assembler.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";

const PROVIDER = "ollama";

/** The documented fields of one /api/chat NDJSON line (all optional: checked as read). */
interface WireLine {
  error?: unknown;
  model?: string;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  message?: {
    content?: string;
    thinking?: string;
    /** Not Ollama's documented field, but some Ollama-compatible servers send it for `thinking`. */
    reasoning_content?: string;
    tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: unknown } }>;
  };
}

/** Ollama `done_reason` → ModelStopReason. */
export function ollamaStopReason(reason: unknown): ModelStopReason {
  if (reason === "length") return "length";
  if (reason === "stop" || reason === undefined) return "stop";
  return "other";
}

/** Ollama /api/chat NDJSON → ChatChunks. Tool calls arrive whole: one tool_call delta each. */
export class OllamaStreamParser implements WireParser {
  private readonly assembler = new ContentAssembler();
  private text: TextBlock | undefined;
  private thinking: ThinkingBlock | undefined;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private stopReason: ModelStopReason | undefined;
  private model: string | undefined;

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    let line: WireLine | null;
    try {
      line = JSON.parse(data) as WireLine | null;
    } catch {
      throw malformedChunk(PROVIDER, "valid JSON", data);
    }
    if (line === null || typeof line !== "object") throw malformedChunk(PROVIDER, "an object", data);
    if (line.error !== undefined) throw errorFromBody(line, { provider: PROVIDER });
    if (line.model) this.model = line.model;
    const message = line.message;
    const thinking = message?.thinking || message?.reasoning_content;
    if (thinking) {
      if (this.thinking === undefined || this.text !== undefined) {
        this.thinking = this.assembler.thinking(PROVIDER);
        this.text = undefined;
      }
      this.thinking.thinking += thinking;
      out.push({ type: "thinking", blockId: this.thinking.id, delta: thinking });
    }
    if (message?.content) {
      this.text ??= this.assembler.text();
      this.text.text += message.content;
      out.push({ type: "text", blockId: this.text.id, delta: message.content });
    }
    if (Array.isArray(message?.tool_calls)) {
      for (const wire of message.tool_calls) {
        const name = wire.function?.name;
        if (typeof name !== "string") throw malformedChunk(PROVIDER, "a tool call name", data);
        const call = this.assembler.toolCall(wire.id || newId("call"), name);
        const args = wire.function?.arguments;
        call.input = typeof args === "string" ? args : JSON.stringify(args ?? {});
        out.push({ type: "tool_call", blockId: call.id, name, delta: call.input });
      }
      this.text = undefined;
    }
    if (line.done === true) {
      this.stopReason = ollamaStopReason(line.done_reason);
      this.usage = { inputTokens: line.prompt_eval_count ?? 0, outputTokens: line.eval_count ?? 0 };
    }
  }

  finish(): ChatFinal {
    if (this.stopReason === undefined) throw streamCut(PROVIDER);
    return this.assembler.final(this.usage, stopReasonWithTools(this.stopReason, this.assembler), this.model);
  }
}
