import {
  type DataBlock,
  newId,
  type TextBlock,
  type ThinkingBlock,
  type ToolCallBlock,
  type Usage,
} from "../../message/index.js";
import type { ChatFinal, ModelStopReason } from "../types.js";

export type FinalBlock = ChatFinal["content"][number];

/**
 * Collects the blocks of one streamed response in the order they started. Parsers keep the block a
 * delta belongs to and append to it in place, so a delta costs one string concatenation.
 */
export class ContentAssembler {
  readonly content: FinalBlock[] = [];
  private toolCalls = 0;

  text(): TextBlock {
    const block: TextBlock = { type: "text", id: newId("blk"), text: "" };
    this.content.push(block);
    return block;
  }

  thinking(provider: string): ThinkingBlock {
    const block: ThinkingBlock = { type: "thinking", id: newId("blk"), thinking: "", provider };
    this.content.push(block);
    return block;
  }

  toolCall(id: string, name: string): ToolCallBlock {
    const block: ToolCallBlock = { type: "tool_call", id, name, input: "", state: "pending" };
    this.content.push(block);
    this.toolCalls += 1;
    return block;
  }

  data(mediaType: string): DataBlock & { source: { type: "base64"; data: string } } {
    const block = {
      type: "data" as const,
      id: newId("blk"),
      source: { type: "base64" as const, mediaType, data: "" },
    };
    this.content.push(block);
    return block;
  }

  get hasToolCalls(): boolean {
    return this.toolCalls > 0;
  }

  /** The final chunk. Empty text goes; a tool call with no arguments gets `{}`. */
  final(usage: Usage, stopReason: ModelStopReason, model?: string): ChatFinal {
    const content: FinalBlock[] = [];
    for (const block of this.content) {
      if (block.type === "text" && block.text === "") continue;
      if (block.type === "tool_call" && block.input === "") block.input = "{}";
      content.push(block);
    }
    const final: ChatFinal = { type: "final", content, usage, stopReason };
    if (model !== undefined) final.model = model;
    return final;
  }
}

/** `stop` becomes `tool_calls` when the response holds tool calls (providers that do not say). */
export function stopReasonWithTools(reason: ModelStopReason, assembler: ContentAssembler): ModelStopReason {
  return reason === "stop" && assembler.hasToolCalls ? "tool_calls" : reason;
}
