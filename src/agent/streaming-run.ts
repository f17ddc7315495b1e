import {
  createEvent,
  type EventInit,
  type TextBlockDeltaEvent,
  type ThinkingBlockDeltaEvent,
  type ToolCallDeltaEvent,
} from "../event/index.js";
import {
  newEventId,
  newId,
  nowIso,
  type TextBlock,
  type ToolCallBlock,
  type ToolResultBlock,
} from "../message/index.js";
import type { ChatChunk, ChatFinal } from "../model/core.js";
import { ActingRun } from "./acting.js";
import { type BlockTracker, fullDelta, nextStreamedId, type OpenBlock, textExtras } from "./block-tracker.js";
import { valueToParts } from "./tool-output.js";

/**
 * The model's stream as reply events: each delta as its event, blocks opened and ended, and the
 * final chunk's blocks that never streamed (and the provider's built-in tool runs) put at their place.
 * ReplyRun drives the loop on top of it.
 */
export abstract class StreamingRun extends ActingRun {
  /**
   * One streamed delta as its event. The hot path: one event literal per delta type (one shape each),
   * `createdAt` taken once per network read by the caller.
   */
  protected onDelta(chunk: Exclude<ChatChunk, ChatFinal>, blocks: BlockTracker, createdAt = nowIso()): void {
    const open = blocks.find(chunk.blockId) ?? this.openBlock(chunk, blocks);
    if (chunk.delta === "") return;
    const id = open.id;
    if (open.text !== undefined) {
      // Folded by appending to the block it started (what the reducer does).
      const event: TextBlockDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "TEXT_BLOCK_DELTA",
        replyId: this.msg.id,
        blockId: id,
        delta: chunk.delta,
      };
      if (!this.noMiddleware && this.mw.watchesEvents) this.mw.onEvent(event);
      open.text.text += chunk.delta;
      this.out.push(event);
    } else if (chunk.type === "thinking") {
      const event: ThinkingBlockDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "THINKING_BLOCK_DELTA",
        replyId: this.msg.id,
        blockId: id,
        delta: chunk.delta,
      };
      this.push(event);
    } else if (chunk.type === "tool_call") {
      const event: ToolCallDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "TOOL_CALL_DELTA",
        replyId: this.msg.id,
        toolCallId: id,
        delta: chunk.delta,
      };
      this.push(event);
    } else this.emit("DATA_BLOCK_DELTA", { blockId: id, data: chunk.delta });
  }

  /**
   * Starts the reply block for a provider block. `beforeBlockId` (a reply block id) inserts it there
   * instead of appending: see `onFinal`.
   */
  protected openBlock(
    chunk: Exclude<ChatChunk, ChatFinal>,
    blocks: BlockTracker,
    beforeBlockId?: string,
  ): OpenBlock {
    const id = chunk.type === "tool_call" ? chunk.blockId : newId("blk");
    const open: OpenBlock = { kind: chunk.type, id };
    blocks.open(chunk.blockId, open);
    const at = beforeBlockId === undefined ? {} : { beforeBlockId };
    if (chunk.type === "text") {
      this.emit("TEXT_BLOCK_START", { blockId: id, ...at });
      open.text = this.msg.content.find((block) => block.id === id) as TextBlock;
    } else if (chunk.type === "thinking") this.emit("THINKING_BLOCK_START", { blockId: id, ...at });
    else if (chunk.type === "data")
      this.emit("DATA_BLOCK_START", { blockId: id, mediaType: chunk.mediaType, ...at });
    else this.emit("TOOL_CALL_START", { toolCallId: id, toolCallName: chunk.name ?? "", ...at });
    return open;
  }

  /**
   * Ends every streamed block (with provider extras) and adds the blocks that were never streamed
   * (Anthropic redacted thinking, Responses reasoning items, Gemini signatures) at the position the
   * final chunk gives them: before the first later block that did stream. The reply keeps the
   * provider's order, so the next request sends the blocks back in it.
   */
  protected onFinal(final: ChatFinal, blocks: BlockTracker): void {
    const content = final.content;
    for (let i = 0; i < content.length; i++) {
      const block = content[i]!;
      if (block.type === "tool_result" || (block.type === "tool_call" && block.executedBy === "provider")) {
        this.emitProviderRun(block, nextStreamedId(content, i, blocks));
        continue;
      }
      if (blocks.find(block.id) === undefined) {
        const delta = fullDelta(block);
        this.openBlock(delta, blocks, nextStreamedId(content, i, blocks));
        this.onDelta(delta, blocks);
      }
      const id = blocks.find(block.id)!.id;
      if (block.type === "tool_call") this.completeStreamedInput(id, block.input);
      blocks.close(block.id);
      const extras = block.type === "text" ? textExtras(block) : undefined;
      if (extras !== undefined) {
        this.emit("TEXT_BLOCK_END", { blockId: id, extras });
      } else if (block.type === "thinking") {
        const end: EventInit<"THINKING_BLOCK_END"> = { replyId: this.msg.id, blockId: id };
        if (block.signature !== undefined) end.signature = block.signature;
        if (block.redactedData !== undefined) end.redactedData = block.redactedData;
        if (block.itemId !== undefined) end.itemId = block.itemId;
        if (block.provider !== undefined) end.provider = block.provider;
        this.push(createEvent("THINKING_BLOCK_END", end));
      } else this.endBlock({ kind: block.type, id });
    }
    this.endOpenBlocks(blocks);
  }

  /**
   * A call whose arguments never streamed (Anthropic streams no `input_json_delta` for a tool without
   * arguments) gets them from the final chunk (`{}`), so the stored call matches what goes back.
   */
  protected completeStreamedInput(toolCallId: string, input: string): void {
    if (input === "") return;
    const call = this.msg.content.find((b) => b.id === toolCallId);
    if (call?.type === "tool_call" && call.input === "")
      this.emit("TOOL_CALL_DELTA", { toolCallId, delta: input });
  }

  /**
   * A built-in tool run of the provider (a call or its result, whole in the final chunk) as events,
   * at its place among the streamed blocks. The loop never runs, gates or waits on it.
   */
  protected emitProviderRun(block: ToolCallBlock | ToolResultBlock, beforeBlockId: string | undefined): void {
    const at = beforeBlockId === undefined ? {} : { beforeBlockId };
    const by = block.provider === undefined ? {} : { provider: block.provider };
    const toolCallId = block.id;
    if (block.type === "tool_call") {
      this.emit("TOOL_CALL_START", {
        toolCallId,
        toolCallName: block.name,
        executedBy: "provider",
        ...by,
        ...at,
      });
      if (block.input !== "") this.emit("TOOL_CALL_DELTA", { toolCallId, delta: block.input });
      const end: EventInit<"TOOL_CALL_END"> = { replyId: this.msg.id, toolCallId };
      if (block.providerData !== undefined) end.providerData = block.providerData;
      this.push(createEvent("TOOL_CALL_END", end));
      return;
    }
    this.emit("TOOL_RESULT_START", {
      toolCallId,
      toolCallName: block.name,
      executedBy: "provider",
      ...by,
      ...at,
    });
    this.emitOutput(toolCallId, valueToParts(block.output));
    const end: EventInit<"TOOL_RESULT_END"> = {
      replyId: this.msg.id,
      toolCallId,
      state: block.state === "running" ? "success" : block.state,
    };
    if (block.providerData !== undefined) end.providerData = block.providerData;
    this.push(createEvent("TOOL_RESULT_END", end));
  }

  protected endOpenBlocks(blocks: BlockTracker): void {
    for (const block of blocks.drainOpen()) this.endBlock(block);
  }

  protected endBlock(block: OpenBlock): void {
    if (block.kind === "text") this.emit("TEXT_BLOCK_END", { blockId: block.id });
    else if (block.kind === "thinking") this.emit("THINKING_BLOCK_END", { blockId: block.id });
    else if (block.kind === "data") this.emit("DATA_BLOCK_END", { blockId: block.id });
    else this.emit("TOOL_CALL_END", { toolCallId: block.id });
  }
}
