// Only types from the message barrel: the fold runs in the browser (the console, the client), and
// the barrel reaches node:crypto (ids). Values come from their own files.
import { addCost } from "../message/cost.js";
import type {
  ContentBlock,
  DataBlock,
  Msg,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from "../message/index.js";
import { appendBase64 } from "./base64.js";
import { recordOf } from "./decisions.js";
import type { AgentEvent, ReplyStartEvent } from "./types.js";

/** Starts the assistant Msg of a reply from its REPLY_START event. */
export function replyMsgFromStart(event: ReplyStartEvent): Msg {
  return {
    id: event.replyId,
    name: event.name,
    role: "assistant",
    content: [],
    metadata: {},
    createdAt: event.createdAt,
  };
}

/**
 * Folds one event into the assistant Msg of its reply and returns the new Msg; `msg` is not changed
 * (blocks that change are copied, the rest are shared). Events of another reply are ignored.
 * Passing `undefined` with a REPLY_START starts a new Msg.
 */
export function applyEvent(msg: Msg, event: AgentEvent): Msg;
export function applyEvent(msg: Msg | undefined, event: AgentEvent): Msg | undefined;
export function applyEvent(msg: Msg | undefined, event: AgentEvent): Msg | undefined {
  if (msg === undefined) return event.type === "REPLY_START" ? replyMsgFromStart(event) : undefined;
  if (msg.id !== event.replyId) return msg;
  const draft: Msg = { ...msg, content: msg.content.slice() };
  return reduce(draft, event, false) ? draft : msg;
}

/**
 * Same fold, but changes `msg` in place (no copies). The agent uses it to build the Msg it stores,
 * so the stored Msg and any client-side fold share one code path.
 */
export function applyEventInPlace(msg: Msg, event: AgentEvent): Msg {
  if (msg.id === event.replyId) reduce(msg, event, true);
  return msg;
}

/** Folds a whole event list (e.g. a recorded stream) into the reply Msg. */
export function foldEvents(events: Iterable<AgentEvent>, initial?: Msg): Msg | undefined {
  let msg = initial;
  for (const event of events) msg = applyEvent(msg, event);
  return msg;
}

/** Index of the last block with this type and id, searching from the end (the common case). */
function indexOfBlock(content: ContentBlock[], type: ContentBlock["type"], id: string): number {
  for (let i = content.length - 1; i >= 0; i--) {
    const block = content[i]!;
    if (block.id === id && block.type === type) return i;
  }
  return -1;
}

/** The block to write to: itself in place, or a copy put into the draft's content. */
function writable<B extends ContentBlock>(msg: Msg, index: number, inPlace: boolean): B {
  const block = msg.content[index] as B;
  if (inPlace) return block;
  const copy = { ...block };
  msg.content[index] = copy;
  return copy;
}

/** The block with this type and id, writable (itself in place, or the draft's copy); undefined when absent. */
function writableBlock<B extends ContentBlock>(
  msg: Msg,
  type: B["type"],
  id: string,
  inPlace: boolean,
): B | undefined {
  const index = indexOfBlock(msg.content, type, id);
  return index < 0 ? undefined : writable<B>(msg, index, inPlace);
}

function edit<B extends ContentBlock>(
  msg: Msg,
  type: B["type"],
  id: string,
  inPlace: boolean,
  change: (block: B) => void,
): boolean {
  const block = writableBlock<B>(msg, type, id, inPlace);
  if (block === undefined) return false;
  change(block);
  return true;
}

function setCallStates(
  msg: Msg,
  ids: Iterable<string>,
  state: ToolCallBlock["state"],
  inPlace: boolean,
): boolean {
  let changed = false;
  for (const id of ids) {
    changed =
      edit<ToolCallBlock>(msg, "tool_call", id, inPlace, (call) => {
        call.state = state;
      }) || changed;
  }
  return changed;
}

function appendResultText(result: ToolResultBlock, delta: string, eventId: string): void {
  if (typeof result.output === "string") {
    result.output += delta;
    return;
  }
  const parts = result.output.slice();
  const last = parts[parts.length - 1];
  if (last?.type === "text") parts[parts.length - 1] = { ...last, text: last.text + delta };
  else parts.push({ type: "text", id: eventId, text: delta } satisfies TextBlock);
  result.output = parts;
}

function appendResultData(
  result: ToolResultBlock,
  event: Extract<AgentEvent, { type: "TOOL_RESULT_DATA_DELTA" }>,
): void {
  const parts: Array<TextBlock | DataBlock> =
    typeof result.output === "string"
      ? result.output === ""
        ? []
        : [{ type: "text", id: `${result.id}:text`, text: result.output }]
      : result.output.slice();
  const index = parts.findIndex((part) => part.type === "data" && part.id === event.blockId);
  if (index < 0) {
    parts.push(dataBlockOf(event.blockId, event.mediaType, event.url, event.data, event.name));
  } else {
    const existing = parts[index] as DataBlock;
    if (existing.source.type === "base64" && event.data !== undefined) {
      parts[index] = {
        ...existing,
        source: { ...existing.source, data: appendBase64(existing.source.data, event.data) },
      };
    }
  }
  result.output = parts;
}

/** A data block as a start event describes it: by URL, or base64 data to be appended to. */
function dataBlockOf(id: string, mediaType: string, url?: string, data?: string, name?: string): DataBlock {
  const block: DataBlock =
    url !== undefined
      ? { type: "data", id, source: { type: "url", url, mediaType } }
      : { type: "data", id, source: { type: "base64", mediaType, data: data ?? "" } };
  if (name !== undefined) block.name = name;
  return block;
}

/** Stamps a built-in tool run of the provider; its call is `finished` from the start (never run here). */
function markProviderRun(
  block: ToolCallBlock | ToolResultBlock,
  executedBy: "provider",
  provider: string | undefined,
): void {
  block.executedBy = executedBy;
  if (provider !== undefined) block.provider = provider;
  if (block.type === "tool_call") block.state = "finished";
}

/** Appends `block`, or inserts it before the block with id `beforeId` when there is one. */
function insertBlock(msg: Msg, block: ContentBlock, beforeId: string | undefined): void {
  if (beforeId !== undefined) {
    for (let i = msg.content.length - 1; i >= 0; i--) {
      const other = msg.content[i]!;
      if (other.id === beforeId && other.type !== "tool_result") {
        msg.content.splice(i, 0, block);
        return;
      }
    }
  }
  msg.content.push(block);
}

/** Applies `event` to `msg`; returns whether anything changed. */
function reduce(msg: Msg, event: AgentEvent, inPlace: boolean): boolean {
  switch (event.type) {
    // The streamed deltas first, and without a callback: they are most of a reply's events.
    case "TEXT_BLOCK_DELTA": {
      const block = writableBlock<TextBlock>(msg, "text", event.blockId, inPlace);
      if (block !== undefined) block.text += event.delta;
      return block !== undefined;
    }
    case "TOOL_CALL_DELTA": {
      const call = writableBlock<ToolCallBlock>(msg, "tool_call", event.toolCallId, inPlace);
      if (call !== undefined) call.input += event.delta;
      return call !== undefined;
    }
    case "THINKING_BLOCK_DELTA": {
      const block = writableBlock<ThinkingBlock>(msg, "thinking", event.blockId, inPlace);
      if (block !== undefined) block.thinking += event.delta;
      return block !== undefined;
    }
    case "TEXT_BLOCK_START":
      insertBlock(msg, { type: "text", id: event.blockId, text: "" }, event.beforeBlockId);
      return true;
    case "TEXT_BLOCK_END":
      if (event.extras === undefined) return false;
      return edit<TextBlock>(msg, "text", event.blockId, inPlace, (block) => {
        Object.assign(block, event.extras);
      });
    case "THINKING_BLOCK_START":
      insertBlock(msg, { type: "thinking", id: event.blockId, thinking: "" }, event.beforeBlockId);
      return true;
    case "THINKING_BLOCK_END":
      return edit<Extract<ContentBlock, { type: "thinking" }>>(
        msg,
        "thinking",
        event.blockId,
        inPlace,
        (block) => {
          if (event.signature !== undefined) block.signature = event.signature;
          if (event.redactedData !== undefined) block.redactedData = event.redactedData;
          if (event.itemId !== undefined) block.itemId = event.itemId;
          if (event.provider !== undefined) block.provider = event.provider;
        },
      );
    case "DATA_BLOCK_START":
      insertBlock(
        msg,
        dataBlockOf(event.blockId, event.mediaType, event.url, "", event.name),
        event.beforeBlockId,
      );
      return true;
    case "DATA_BLOCK_DELTA":
      return edit<DataBlock>(msg, "data", event.blockId, inPlace, (block) => {
        if (block.source.type === "base64") {
          block.source = { ...block.source, data: appendBase64(block.source.data, event.data) };
        }
      });
    case "HINT_BLOCK":
      msg.content.push({ type: "hint", id: event.blockId, text: event.text });
      return true;
    case "TOOL_CALL_START": {
      const call: ToolCallBlock = {
        type: "tool_call",
        id: event.toolCallId,
        name: event.toolCallName,
        input: "",
        state: "pending",
      };
      if (event.executedBy !== undefined) markProviderRun(call, event.executedBy, event.provider);
      insertBlock(msg, call, event.beforeBlockId);
      return true;
    }
    case "TOOL_CALL_END":
      if (event.providerData === undefined) return false;
      return edit<ToolCallBlock>(msg, "tool_call", event.toolCallId, inPlace, (call) => {
        call.providerData = event.providerData;
      });
    case "REQUIRE_USER_CONFIRM":
      return setCallStates(
        msg,
        event.toolCalls.map((call) => call.id),
        "asking",
        inPlace,
      );
    case "REQUIRE_EXTERNAL_EXECUTION":
      return setCallStates(
        msg,
        event.toolCalls.map((call) => call.id),
        "submitted",
        inPlace,
      );
    case "USER_CONFIRM_RESULT": {
      let changed = false;
      for (const answer of event.confirmResults) {
        if (!answer.confirmed) continue;
        changed =
          edit<ToolCallBlock>(msg, "tool_call", answer.toolCall.id, inPlace, (call) => {
            call.state = "allowed";
            call.input = answer.toolCall.input;
          }) || changed;
      }
      return changed;
    }
    case "EXTERNAL_EXECUTION_RESULT":
      return setCallStates(
        msg,
        event.toolResults.map((result) => result.id),
        "allowed",
        inPlace,
      );
    case "TOOL_RESULT_START":
      edit<ToolCallBlock>(msg, "tool_call", event.toolCallId, inPlace, (call) => {
        if (call.state === "pending") call.state = "allowed";
      });
      {
        const result: ToolResultBlock = {
          type: "tool_result",
          id: event.toolCallId,
          name: event.toolCallName,
          output: "",
          state: "running",
        };
        if (event.executedBy !== undefined) markProviderRun(result, event.executedBy, event.provider);
        insertBlock(msg, result, event.beforeBlockId);
      }
      return true;
    case "TOOL_RESULT_TEXT_DELTA":
      return edit<ToolResultBlock>(msg, "tool_result", event.toolCallId, inPlace, (result) => {
        appendResultText(result, event.delta, event.id);
      });
    case "TOOL_RESULT_DATA_DELTA":
      return edit<ToolResultBlock>(msg, "tool_result", event.toolCallId, inPlace, (result) => {
        appendResultData(result, event);
      });
    case "TOOL_RESULT_END":
      edit<ToolResultBlock>(msg, "tool_result", event.toolCallId, inPlace, (result) => {
        result.state = event.state;
        if (event.providerData !== undefined) result.providerData = event.providerData;
      });
      setCallStates(msg, [event.toolCallId], "finished", inPlace);
      return true;
    case "MODEL_CALL_END": {
      const usage = msg.usage ?? { inputTokens: 0, outputTokens: 0 };
      const next = {
        ...usage,
        inputTokens: usage.inputTokens + event.inputTokens,
        outputTokens: usage.outputTokens + event.outputTokens,
      };
      if (event.cacheReadTokens !== undefined)
        next.cacheReadTokens = (usage.cacheReadTokens ?? 0) + event.cacheReadTokens;
      if (event.cacheWriteTokens !== undefined) {
        next.cacheWriteTokens = (usage.cacheWriteTokens ?? 0) + event.cacheWriteTokens;
      }
      msg.usage = next;
      if (event.cost !== undefined) msg.cost = addCost(msg.cost, event.cost);
      if (event.stopReason !== undefined) msg.stopReason = event.stopReason;
      if (event.responseId !== undefined) msg.metadata = { ...msg.metadata, responseId: event.responseId };
      return true;
    }
    case "DECISION": {
      const kept = msg.metadata?.decisions;
      const decisions = Array.isArray(kept) ? kept : [];
      msg.metadata = { ...msg.metadata, decisions: [...decisions, recordOf(event)] };
      return true;
    }
    case "REPLY_END":
      msg.finishedReason = event.finishedReason;
      if (event.error !== undefined) msg.error = event.error;
      if (event.structuredOutput !== undefined) msg.structuredOutput = event.structuredOutput;
      return true;
    default:
      return false;
  }
}
