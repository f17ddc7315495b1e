import type { AgentEvent } from "../../../event/index.js";
import type {
  AgentscopeMessageMetadata,
  UiFinishReason,
  UiMessageChunk,
  UiMessageUsage,
} from "../../../protocol/index.js";
import { AGENTSCOPE_EVENT_PART } from "../../../protocol/index.js";

/**
 * The running translation of one reply into one assistant UI message: plain data, changed only by
 * `translateUiEvent` and `finishUi`. The message id is the reply id, so a continuation (an answered
 * approval) and a replay (`resume`) land on the same message. Sub-agent events (with a `source`)
 * are left out. `ended` says the reply has ended or paused: nothing more belongs to this stream.
 */
export interface UiTranslation {
  sessionId: string;
  replyId: string;
  /** Every agent event as a transient `data-agentscope-event` chunk too (the agentscope client transport). */
  withEvents: boolean;
  started: boolean;
  usage: UiMessageUsage;
  /** Arguments (JSON text) of each call so far, by tool call id. */
  inputs: Map<string, string>;
  toolNames: Map<string, string>;
  /** Output text of each running result, by tool call id. */
  outputs: Map<string, string>;
  /** Data blocks being streamed: media type, URL or base64 so far. */
  data: Map<string, { mediaType: string; url?: string; base64: string }>;
  /** The reply paused for an answer at this event (the stream ends unless the answer follows at once). */
  paused?: "user_confirm" | "external_execution";
  ended?: UiFinishReason;
  endMetadata?: Partial<AgentscopeMessageMetadata>;
}

export function startUi(sessionId: string, replyId: string, withEvents = false): UiTranslation {
  return {
    sessionId,
    replyId,
    withEvents,
    started: false,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    inputs: new Map(),
    toolNames: new Map(),
    outputs: new Map(),
    data: new Map(),
  };
}

/** The chunks one agent event stands for (the `start` chunk before the first). */
export function translateUiEvent(t: UiTranslation, event: AgentEvent): UiMessageChunk[] {
  const out: UiMessageChunk[] = [];
  if (!t.started && event.source === undefined) out.push(startChunk(t));
  if (t.withEvents) out.push({ type: AGENTSCOPE_EVENT_PART, id: event.id, data: event, transient: true });
  if (event.source !== undefined) return out;
  // An answer right after a pause (a replay of a resumed reply) means the reply goes on.
  if (
    event.type === "USER_CONFIRM_RESULT" ||
    event.type === "EXTERNAL_EXECUTION_RESULT" ||
    event.type === "USER_INTERRUPT"
  )
    delete t.paused;
  out.push(...chunksOf(t, event));
  return out;
}

function chunksOf(t: UiTranslation, event: AgentEvent): UiMessageChunk[] {
  switch (event.type) {
    case "REPLY_START":
    case "TOOL_RESULT_START":
    case "EXTERNAL_EXECUTION_RESULT":
      return [];
    case "MODEL_CALL_START":
      return [{ type: "start-step" }];
    case "MODEL_CALL_END":
      addUsage(t.usage, event);
      return [
        { type: "finish-step" },
        { type: "message-metadata", messageMetadata: { usage: { ...t.usage } } },
      ];
    case "TEXT_BLOCK_START":
      return [{ type: "text-start", id: event.blockId }];
    case "TEXT_BLOCK_DELTA":
      return [{ type: "text-delta", id: event.blockId, delta: event.delta }];
    case "TEXT_BLOCK_END":
      return [{ type: "text-end", id: event.blockId }];
    case "THINKING_BLOCK_START":
      return [{ type: "reasoning-start", id: event.blockId }];
    case "THINKING_BLOCK_DELTA":
      return [{ type: "reasoning-delta", id: event.blockId, delta: event.delta }];
    case "THINKING_BLOCK_END":
      return [{ type: "reasoning-end", id: event.blockId }];
    case "DATA_BLOCK_START":
      t.data.set(event.blockId, {
        mediaType: event.mediaType,
        base64: "",
        ...(event.url ? { url: event.url } : {}),
      });
      return [];
    case "DATA_BLOCK_DELTA": {
      const block = t.data.get(event.blockId);
      if (block) block.base64 += event.data;
      return [];
    }
    case "DATA_BLOCK_END": {
      const block = t.data.get(event.blockId);
      t.data.delete(event.blockId);
      if (!block) return [];
      return [
        {
          type: "file",
          mediaType: block.mediaType,
          url: block.url ?? `data:${block.mediaType};base64,${block.base64}`,
        },
      ];
    }
    case "TOOL_CALL_START":
      t.inputs.set(event.toolCallId, "");
      t.toolNames.set(event.toolCallId, event.toolCallName);
      return [
        {
          type: "tool-input-start",
          toolCallId: event.toolCallId,
          toolName: event.toolCallName,
          dynamic: true,
          ...(event.executedBy === "provider" ? { providerExecuted: true } : {}),
        },
      ];
    case "TOOL_CALL_DELTA":
      t.inputs.set(event.toolCallId, (t.inputs.get(event.toolCallId) ?? "") + event.delta);
      return event.delta === ""
        ? []
        : [{ type: "tool-input-delta", toolCallId: event.toolCallId, inputTextDelta: event.delta }];
    case "TOOL_CALL_END":
      return [
        {
          type: "tool-input-available",
          toolCallId: event.toolCallId,
          toolName: t.toolNames.get(event.toolCallId) ?? "",
          input: parsedInput(t.inputs.get(event.toolCallId) ?? ""),
          dynamic: true,
        },
      ];
    case "TOOL_RESULT_TEXT_DELTA": {
      const text = (t.outputs.get(event.toolCallId) ?? "") + event.delta;
      t.outputs.set(event.toolCallId, text);
      return [
        {
          type: "tool-output-available",
          toolCallId: event.toolCallId,
          output: text,
          dynamic: true,
          preliminary: true,
        },
      ];
    }
    case "TOOL_RESULT_DATA_DELTA":
      return [];
    case "TOOL_RESULT_END": {
      const text = t.outputs.get(event.toolCallId) ?? "";
      t.outputs.delete(event.toolCallId);
      if (event.state === "denied") return [{ type: "tool-output-denied", toolCallId: event.toolCallId }];
      if (event.state === "error" || event.state === "interrupted")
        return [
          {
            type: "tool-output-error",
            toolCallId: event.toolCallId,
            errorText: text || (event.state === "interrupted" ? "interrupted" : "the tool failed"),
            dynamic: true,
          },
        ];
      return [{ type: "tool-output-available", toolCallId: event.toolCallId, output: text, dynamic: true }];
    }
    case "REQUIRE_USER_CONFIRM":
      t.paused = "user_confirm";
      return event.toolCalls.map((call) => ({
        type: "tool-approval-request",
        approvalId: call.id,
        toolCallId: call.id,
        ...(call.reason ? { reason: call.reason } : {}),
      }));
    case "USER_CONFIRM_RESULT":
      return event.confirmResults.map((result) => ({
        type: "tool-approval-response",
        approvalId: result.toolCall.id,
        approved: result.confirmed,
      }));
    case "REQUIRE_EXTERNAL_EXECUTION":
      t.paused = "external_execution";
      return [dataPart(event)];
    case "REPLY_END": {
      t.ended = finishReasonOf(event.finishedReason);
      t.endMetadata = {
        status: event.finishedReason,
        ...(event.structuredOutput !== undefined ? { structuredOutput: event.structuredOutput } : {}),
      };
      return event.finishedReason === "error"
        ? [{ type: "error", errorText: event.error?.message ?? "the reply failed" }]
        : [];
    }
    default:
      return [dataPart(event)];
  }
}

/**
 * The closing chunk: `finish` with how the reply ended (or paused: `tool-calls`, status `waiting`),
 * the usage and status in the message metadata; or an `error` when following the reply failed.
 */
export function finishUi(t: UiTranslation, failure?: string): UiMessageChunk[] {
  const out: UiMessageChunk[] = t.started ? [] : [startChunk(t)];
  if (failure !== undefined) return [...out, { type: "error", errorText: failure }];
  const usage = { ...t.usage };
  if (t.ended === undefined && t.paused === undefined)
    return [...out, { type: "error", errorText: "the reply stopped before it finished; see the server log" }];
  const finishReason = t.ended ?? "tool-calls";
  const messageMetadata =
    t.ended !== undefined ? { usage, ...t.endMetadata } : { usage, status: "waiting" as const };
  return [...out, { type: "finish", finishReason, messageMetadata }];
}

/** The message's first chunk: its id is the reply id, so continuations and replays land on it. */
function startChunk(t: UiTranslation): UiMessageChunk {
  t.started = true;
  return {
    type: "start",
    messageId: t.replyId,
    messageMetadata: { sessionId: t.sessionId, replyId: t.replyId },
  };
}

/** Whether the stream is over: the reply ended, or paused (unless its answer follows in the log). */
export function uiDone(t: UiTranslation): boolean {
  return t.ended !== undefined;
}

/** Any other event: a `data-<kebab-type>` part (id = the event's id) with the event's own fields. */
function dataPart(event: AgentEvent): UiMessageChunk {
  const { id, type, createdAt: _createdAt, replyId: _replyId, ...data } = event;
  return { type: `data-${type.toLowerCase().replaceAll("_", "-")}`, id, data };
}

function finishReasonOf(reason: string): UiFinishReason {
  if (reason === "exceed_max_iters") return "length";
  if (reason === "error") return "error";
  if (reason === "interrupted") return "interrupted";
  return "stop";
}

function parsedInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text; // the agent answers a broken call with an error result the model reads
  }
}

function addUsage(
  usage: UiMessageUsage,
  call: { inputTokens: number; outputTokens: number; cacheReadTokens?: number },
) {
  usage.inputTokens += call.inputTokens;
  usage.outputTokens += call.outputTokens;
  usage.totalTokens = usage.inputTokens + usage.outputTokens;
  if (call.cacheReadTokens) usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + call.cacheReadTokens;
}
