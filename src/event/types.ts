import type {
  Cost,
  ErrorInfo,
  FinishReason,
  Msg,
  StopReason,
  TextBlockExtras,
  ToolCallBlock,
  ToolResultBlock,
  ToolResultState,
} from "../message/index.js";
import type { ConfirmResult } from "../protocol/confirm-result.js";
import type {
  Answerer,
  DecisionChannel,
  DecisionOutcome,
  DecisionRecord,
  InputChange,
} from "../protocol/decision-record.js";

/** One answer to a confirmation (the wire type lives in protocol/; re-exported here). */
/** Decision records (the wire types live in protocol/; re-exported here). */
export type { Answerer, ConfirmResult, DecisionChannel, DecisionOutcome, DecisionRecord, InputChange };

/**
 * Events: the streaming view of a reply. Invariants:
 * 1. every event of one reply carries the same replyId; blocks go start → delta* → end, correlated by
 *    blockId (text, thinking, data) or toolCallId (tool calls and results);
 * 2. folding a reply's events with `applyEvent` rebuilds the assistant Msg the agent stored.
 */
export interface EventBase {
  id: string;
  createdAt: string;
  replyId: string;
  /** Slash path of the sub-agent that emitted it (`main/researcher`); absent for the top-level agent. */
  source?: string;
  metadata?: Record<string, unknown>;
}

export interface ReplyStartEvent extends EventBase {
  type: "REPLY_START";
  sessionId: string;
  name: string;
  role: "assistant";
}
export interface ReplyEndEvent extends EventBase {
  type: "REPLY_END";
  finishedReason: FinishReason;
  error?: ErrorInfo;
  structuredOutput?: unknown;
}
export interface ModelCallStartEvent extends EventBase {
  type: "MODEL_CALL_START";
  modelName: string;
  /** Set when this call goes to the fallback model after the primary failed. */
  fallbackFrom?: string;
}
export interface ModelCallEndEvent extends EventBase {
  type: "MODEL_CALL_END";
  modelName: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** What this call cost, when the agent has a pricing table; folded into `Msg.cost`. */
  cost?: Cost;
  /** Why the model stopped; folded into `Msg.stopReason`. */
  stopReason?: StopReason;
  /** The provider's response id (OpenAI Responses); folded into `Msg.metadata.responseId`. */
  responseId?: string;
  error?: ErrorInfo;
}

export interface BlockStartEvent<T extends string> extends EventBase {
  type: T;
  blockId: string;
  /**
   * Insert the block before this block (or tool call) id instead of appending: a block that arrived
   * whole in the model's final chunk keeps the position the provider gave it.
   */
  beforeBlockId?: string;
}
export interface BlockEndEvent<T extends string> extends EventBase {
  type: T;
  blockId: string;
}
export interface BlockDeltaEvent<T extends string> extends EventBase {
  type: T;
  blockId: string;
  delta: string;
}
export type TextBlockStartEvent = BlockStartEvent<"TEXT_BLOCK_START">;
export type TextBlockDeltaEvent = BlockDeltaEvent<"TEXT_BLOCK_DELTA">;
export interface TextBlockEndEvent extends BlockEndEvent<"TEXT_BLOCK_END"> {
  /** Provider extras of the finished block (refusal, Responses item id/status/phase). */
  extras?: TextBlockExtras;
}
export type ThinkingBlockStartEvent = BlockStartEvent<"THINKING_BLOCK_START">;
export type ThinkingBlockDeltaEvent = BlockDeltaEvent<"THINKING_BLOCK_DELTA">;
export interface ThinkingBlockEndEvent extends EventBase {
  type: "THINKING_BLOCK_END";
  blockId: string;
  signature?: string;
  redactedData?: string;
  itemId?: string;
  provider?: string;
}
export interface DataBlockStartEvent extends EventBase {
  type: "DATA_BLOCK_START";
  blockId: string;
  /** See BlockStartEvent.beforeBlockId. */
  beforeBlockId?: string;
  mediaType: string;
  name?: string;
  /** Set when the data is a URL rather than streamed base64. */
  url?: string;
}
export interface DataBlockDeltaEvent extends EventBase {
  type: "DATA_BLOCK_DELTA";
  blockId: string;
  /** A base64 fragment. */
  data: string;
}
export type DataBlockEndEvent = BlockEndEvent<"DATA_BLOCK_END">;
export interface HintBlockEvent extends EventBase {
  type: "HINT_BLOCK";
  blockId: string;
  text: string;
}

export interface ToolCallStartEvent extends EventBase {
  type: "TOOL_CALL_START";
  toolCallId: string;
  toolCallName: string;
  /** See BlockStartEvent.beforeBlockId. */
  beforeBlockId?: string;
  /** A built-in tool the provider ran (the call starts `finished`; the agent never runs it). */
  executedBy?: "provider";
  provider?: string;
}
export interface ToolCallDeltaEvent extends EventBase {
  type: "TOOL_CALL_DELTA";
  toolCallId: string;
  /** A JSON fragment of the arguments. */
  delta: string;
}
export interface ToolCallEndEvent extends EventBase {
  type: "TOOL_CALL_END";
  toolCallId: string;
  /** A provider-executed call's wire item, folded into `ToolCallBlock.providerData`. */
  providerData?: unknown;
}
export interface ToolResultStartEvent extends EventBase {
  type: "TOOL_RESULT_START";
  toolCallId: string;
  toolCallName: string;
  /** See BlockStartEvent.beforeBlockId (results of provider-executed calls keep their place). */
  beforeBlockId?: string;
  /** The result of a built-in tool the provider ran. */
  executedBy?: "provider";
  provider?: string;
}
export interface ToolResultTextDeltaEvent extends EventBase {
  type: "TOOL_RESULT_TEXT_DELTA";
  toolCallId: string;
  delta: string;
}
export interface ToolResultDataDeltaEvent extends EventBase {
  type: "TOOL_RESULT_DATA_DELTA";
  toolCallId: string;
  /** Correlates fragments of one data part of the output. */
  blockId: string;
  mediaType: string;
  /** A base64 fragment, or absent when `url` is set. */
  data?: string;
  url?: string;
  name?: string;
}
export interface ToolResultEndEvent extends EventBase {
  type: "TOOL_RESULT_END";
  toolCallId: string;
  state: ToolResultState;
  /** A provider-executed result's wire block, folded into `ToolResultBlock.providerData`. */
  providerData?: unknown;
}

export interface ExceedMaxItersEvent extends EventBase {
  type: "EXCEED_MAX_ITERS";
  maxIters: number;
}
export interface RequireUserConfirmEvent extends EventBase {
  type: "REQUIRE_USER_CONFIRM";
  /** `preview`: the file change the call would make, when its tool declares one (Tool.preview). */
  toolCalls: Array<
    ToolCallBlock & {
      reason?: string;
      suggestedRules?: string[];
      preview?: { path: string; before?: string; after: string };
      /** When the ask expires unanswered (ISO 8601), when an approver policy sets a deadline. */
      expiresAt?: string;
      /** What untrusted content the reply had read when it asked (`a web page (web_fetch)`), when tainted. */
      taint?: string[];
    }
  >;
}
export interface RequireExternalExecutionEvent extends EventBase {
  type: "REQUIRE_EXTERNAL_EXECUTION";
  toolCalls: ToolCallBlock[];
}

export interface UserConfirmResultEvent extends EventBase {
  type: "USER_CONFIRM_RESULT";
  confirmResults: ConfirmResult[];
  /**
   * Who answered, for the decision records (absent: `user` through `code`). The service sets it to
   * the authenticated user and the channel the answer came through; a client cannot choose it.
   */
  answeredBy?: Answerer;
}
export interface ExternalExecutionResultEvent extends EventBase {
  type: "EXTERNAL_EXECUTION_RESULT";
  toolResults: ToolResultBlock[];
  /** Who sent the results (see UserConfirmResultEvent.answeredBy). */
  answeredBy?: Answerer;
}
export interface UserInterruptEvent extends EventBase {
  type: "USER_INTERRUPT";
  reason?: string;
}
export interface AllToolsDeniedEvent extends EventBase {
  type: "ALL_TOOLS_DENIED";
  deniedToolCalls: ToolCallBlock[];
}
export interface RequestStopEvent extends EventBase {
  type: "REQUEST_STOP";
  reason?: string;
}
/**
 * A sub-agent started a run inside a tool call of its parent. `replyId` is the sub-run's reply id
 * (every event of the sub-run carries it and `source`); `toolCallId` is the parent's call that hosts
 * it, in the parent reply `parentReplyId`. Emitted before the sub-run's REPLY_START.
 */
export interface SubagentExposedEvent extends EventBase {
  type: "SUBAGENT_EXPOSED";
  /** The sub-agent's name. */
  name: string;
  toolCallId: string;
  parentReplyId: string;
  /**
   * Set when the sub-agent was spawned with `agent_spawn(expose_to_user=true)` and is served as a
   * session of its own (the seeds' fields): the spawn's id, the template's agent name, the
   * sub-agent's session, and the label the model gave it. A UI opens `sessionId` as a new
   * conversation entry under the parent.
   */
  subagentId?: string;
  agentId?: string;
  sessionId?: string;
  label?: string;
}
/**
 * The record of one permission outcome for one call (see DecisionRecord): emitted right before what
 * it decided (an ask before REQUIRE_USER_CONFIRM, a refusal before its denied result, a rule's allow
 * before the call runs), and for an answer right after the answer event (an external result: after
 * its result). Folds into the reply Msg's `metadata.decisions`; it never changes a block.
 */
export interface DecisionEvent extends EventBase, Omit<DecisionRecord, keyof EventBase> {
  type: "DECISION";
}
export interface CustomEvent extends EventBase {
  type: "CUSTOM";
  name: string;
  value?: unknown;
}

export type AgentEvent =
  | ReplyStartEvent
  | ReplyEndEvent
  | ModelCallStartEvent
  | ModelCallEndEvent
  | TextBlockStartEvent
  | TextBlockDeltaEvent
  | TextBlockEndEvent
  | ThinkingBlockStartEvent
  | ThinkingBlockDeltaEvent
  | ThinkingBlockEndEvent
  | DataBlockStartEvent
  | DataBlockDeltaEvent
  | DataBlockEndEvent
  | HintBlockEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolResultStartEvent
  | ToolResultTextDeltaEvent
  | ToolResultDataDeltaEvent
  | ToolResultEndEvent
  | ExceedMaxItersEvent
  | RequireUserConfirmEvent
  | RequireExternalExecutionEvent
  | UserConfirmResultEvent
  | ExternalExecutionResultEvent
  | UserInterruptEvent
  | AllToolsDeniedEvent
  | RequestStopEvent
  | SubagentExposedEvent
  | DecisionEvent
  | CustomEvent;

export type AgentEventType = AgentEvent["type"];
export type EventOfType<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** The fields a caller supplies when building an event; id and createdAt are filled in. */
export type EventInit<T extends AgentEventType> = Omit<EventOfType<T>, "id" | "createdAt" | "type"> &
  Partial<Pick<EventBase, "id" | "createdAt">>;

/** Input events: what a client sends back to a paused (or running) reply. */
export type UserConfirmResult = UserConfirmResultEvent;
export type ExternalExecutionResult = ExternalExecutionResultEvent;
export type UserInterrupt = UserInterruptEvent;
export type InputEvent = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent;

export type { Msg };
