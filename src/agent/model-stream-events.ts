import {
  createEvent,
  type EventInit,
  type TextBlockDeltaEvent,
  type ThinkingBlockDeltaEvent,
  type ToolCallDeltaEvent,
} from "../event/index.js";
import { newEventId, newId, nowIso, type ToolCallBlock, type ToolResultBlock } from "../message/index.js";
import type { ChatChunk, ChatFinal } from "../model/core.js";
import { BlockTracker, fullDelta, nextStreamedId, type OpenBlock, textExtras } from "./block-tracker.js";
import type { ReplyRun } from "./reply-run.js";
import { emitOutput } from "./result-events.js";
import { valueToParts } from "./tool-output.js";

type Delta = Exclude<ChatChunk, ChatFinal>;

/**
 * One model call's stream as reply events: each delta as its event (the block opened on its first
 * delta), then, from the final chunk, the blocks that never streamed and the provider's own tool runs
 * put at their place, and every block ended. Each event is folded once, by the run (`push`).
 */
export class ModelStreamEvents {
  readonly #blocks = new BlockTracker();

  constructor(private readonly run: ReplyRun) {}

  /** Whether any block has streamed (a failed call is then not retried on the fallback model). */
  get streamed(): boolean {
    return this.#blocks.any();
  }

  /**
   * One streamed delta as its event. The hot path: one event literal per delta type (one shape each),
   * `createdAt` taken once per network read by the caller.
   */
  delta(chunk: Delta, createdAt = nowIso()): void {
    const open = this.#blocks.find(chunk.blockId) ?? this.#open(chunk);
    if (chunk.delta === "") return;
    const run = this.run;
    const id = open.id;
    if (chunk.type === "text") {
      const event: TextBlockDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "TEXT_BLOCK_DELTA",
        replyId: run.msg.id,
        blockId: id,
        delta: chunk.delta,
      };
      run.push(event);
    } else if (chunk.type === "thinking") {
      const event: ThinkingBlockDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "THINKING_BLOCK_DELTA",
        replyId: run.msg.id,
        blockId: id,
        delta: chunk.delta,
      };
      run.push(event);
    } else if (chunk.type === "tool_call") {
      const event: ToolCallDeltaEvent = {
        id: newEventId(),
        createdAt,
        type: "TOOL_CALL_DELTA",
        replyId: run.msg.id,
        toolCallId: id,
        delta: chunk.delta,
      };
      run.push(event);
    } else run.emit("DATA_BLOCK_DELTA", { blockId: id, data: chunk.delta });
  }

  /**
   * Ends every streamed block (with provider extras) and adds the blocks that were never streamed
   * (Anthropic redacted thinking, Responses reasoning items, Gemini signatures) at the position the
   * final chunk gives them: before the first later block that did stream. The reply keeps the
   * provider's order, so the next request sends the blocks back in it.
   */
  final(final: ChatFinal): void {
    const run = this.run;
    const blocks = this.#blocks;
    const content = final.content;
    for (let i = 0; i < content.length; i++) {
      const block = content[i]!;
      if (block.type === "tool_result" || (block.type === "tool_call" && block.executedBy === "provider")) {
        this.#providerRun(block, nextStreamedId(content, i, blocks));
        continue;
      }
      if (blocks.find(block.id) === undefined) {
        const delta = fullDelta(block);
        this.#open(delta, nextStreamedId(content, i, blocks));
        this.delta(delta);
      }
      const id = blocks.find(block.id)!.id;
      if (block.type === "tool_call") this.#completeStreamedInput(id, block.input);
      blocks.close(block.id);
      const extras = block.type === "text" ? textExtras(block) : undefined;
      if (extras !== undefined) {
        run.emit("TEXT_BLOCK_END", { blockId: id, extras });
      } else if (block.type === "thinking") {
        const end: EventInit<"THINKING_BLOCK_END"> = { replyId: run.msg.id, blockId: id };
        if (block.signature !== undefined) end.signature = block.signature;
        if (block.redactedData !== undefined) end.redactedData = block.redactedData;
        if (block.itemId !== undefined) end.itemId = block.itemId;
        if (block.provider !== undefined) end.provider = block.provider;
        run.push(createEvent("THINKING_BLOCK_END", end));
      } else this.#end({ kind: block.type, id });
    }
    this.endOpen();
  }

  /** Ends the blocks still open (a call that failed or was aborted mid-stream). */
  endOpen(): void {
    for (const block of this.#blocks.takeOpen()) this.#end(block);
  }

  /**
   * Starts the reply block for a provider block. `beforeBlockId` (a reply block id) inserts it there
   * instead of appending: see `final`.
   */
  #open(chunk: Delta, beforeBlockId?: string): OpenBlock {
    const run = this.run;
    const id = chunk.type === "tool_call" ? chunk.blockId : newId("blk");
    const open: OpenBlock = { kind: chunk.type, id };
    this.#blocks.open(chunk.blockId, open);
    const at = beforeBlockId === undefined ? {} : { beforeBlockId };
    if (chunk.type === "text") run.emit("TEXT_BLOCK_START", { blockId: id, ...at });
    else if (chunk.type === "thinking") run.emit("THINKING_BLOCK_START", { blockId: id, ...at });
    else if (chunk.type === "data")
      run.emit("DATA_BLOCK_START", { blockId: id, mediaType: chunk.mediaType, ...at });
    else run.emit("TOOL_CALL_START", { toolCallId: id, toolCallName: chunk.name ?? "", ...at });
    return open;
  }

  #end(block: OpenBlock): void {
    const run = this.run;
    if (block.kind === "text") run.emit("TEXT_BLOCK_END", { blockId: block.id });
    else if (block.kind === "thinking") run.emit("THINKING_BLOCK_END", { blockId: block.id });
    else if (block.kind === "data") run.emit("DATA_BLOCK_END", { blockId: block.id });
    else run.emit("TOOL_CALL_END", { toolCallId: block.id });
  }

  /**
   * A call whose arguments never streamed (Anthropic streams no `input_json_delta` for a tool without
   * arguments) gets them from the final chunk (`{}`), so the stored call matches what goes back.
   */
  #completeStreamedInput(toolCallId: string, input: string): void {
    if (input === "") return;
    const call = this.run.msg.content.find((b) => b.id === toolCallId);
    if (call?.type === "tool_call" && call.input === "")
      this.run.emit("TOOL_CALL_DELTA", { toolCallId, delta: input });
  }

  /**
   * A built-in tool run of the provider (a call or its result, whole in the final chunk) as events,
   * at its place among the streamed blocks. The loop never runs, gates or waits on it.
   */
  #providerRun(block: ToolCallBlock | ToolResultBlock, beforeBlockId: string | undefined): void {
    const run = this.run;
    const at = beforeBlockId === undefined ? {} : { beforeBlockId };
    const by = block.provider === undefined ? {} : { provider: block.provider };
    const toolCallId = block.id;
    if (block.type === "tool_call") {
      run.emit("TOOL_CALL_START", {
        toolCallId,
        toolCallName: block.name,
        executedBy: "provider",
        ...by,
        ...at,
      });
      if (block.input !== "") run.emit("TOOL_CALL_DELTA", { toolCallId, delta: block.input });
      const end: EventInit<"TOOL_CALL_END"> = { replyId: run.msg.id, toolCallId };
      if (block.providerData !== undefined) end.providerData = block.providerData;
      run.push(createEvent("TOOL_CALL_END", end));
      return;
    }
    run.emit("TOOL_RESULT_START", {
      toolCallId,
      toolCallName: block.name,
      executedBy: "provider",
      ...by,
      ...at,
    });
    emitOutput(run, toolCallId, valueToParts(block.output));
    const end: EventInit<"TOOL_RESULT_END"> = {
      replyId: run.msg.id,
      toolCallId,
      state: block.state === "running" ? "success" : block.state,
    };
    if (block.providerData !== undefined) end.providerData = block.providerData;
    run.push(createEvent("TOOL_RESULT_END", end));
  }
}
