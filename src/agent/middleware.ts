import type { AgentEvent, EventInit } from "../event/index.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import type { ChatChunk, ChatModel, ChatOptions } from "../model/core.js";
import type { DecidedCall, PermissionContext, PermissionDecision } from "../permission/index.js";
import type { AgentState } from "../state/index.js";
import type { Tool, ToolContext } from "../tool/index.js";
import type { ReplyInput } from "./reply-input.js";

/** What every middleware hook can see and do. */
export interface MiddlewareContext {
  agentName: string;
  /** The session being served. Keep per-session data in `data()`, never in the middleware object. */
  state: AgentState;
  replyId: string;
  /** This middleware's per-session data (stored in `state.middleware[name]`, saved with the state). */
  data<T extends Record<string, unknown>>(initial: () => T): T;
  /** Emits an event into the reply's stream (it is folded into the reply Msg like any other). */
  emit(event: AgentEventInit): void;
  /**
   * Ends the reply cleanly after the current stage, with REQUEST_STOP and REPLY_END `stopped`;
   * `metadata` goes on the REQUEST_STOP (a typed reason, e.g. `budgetStop`). The first stop wins.
   */
  requestStop(reason: string, metadata?: Record<string, unknown>): void;
}

/** An event a middleware emits: the agent fills in replyId, id and createdAt. */
export type AgentEventInit = {
  [T in AgentEvent["type"]]: { type: T } & Omit<EventInit<T>, "replyId">;
}[AgentEvent["type"]];

export interface ModelCallRequest {
  model: ChatModel;
  messages: Msg[];
  options: ChatOptions;
}

export interface ToolCallRequest {
  call: ToolCallBlock;
  tool: Tool;
  /**
   * The parsed arguments; a middleware may replace them. Changed arguments are decided again before
   * the tool runs (a call they make denied or asking is an error result, and the tool does not run).
   */
  input: unknown;
  ctx: ToolContext;
  /** The permission decision the call runs under (bound to its exact input; see DecidedCall). */
  decided: DecidedCall;
}

/** A tool's return value, as the agent will turn it into TOOL_RESULT events. */
export type ToolCallOutcome = unknown;

export interface PermissionRequest {
  tool: Tool;
  input: unknown;
  permission: PermissionContext;
}

/**
 * Middleware wraps the stages of a reply. Each hook gets the stage's input and `next` (the rest of
 * the chain, then the stage itself): call `next` to go on (with changed input if you like), change
 * what it returns, or skip it to short-circuit. Hooks run in registration order, outermost first.
 * One middleware object may serve many sessions at once: keep session data in `ctx.data()`.
 */
export interface Middleware {
  /** Unique name; keys this middleware's data in the agent state. */
  name: string;
  /** The system prompt for the next model call. */
  systemPrompt?(prompt: string, ctx: MiddlewareContext): string;
  /** The whole reply: wraps the event stream of one replyStream call. */
  onReply?(
    input: ReplyInput,
    ctx: MiddlewareContext,
    next: (input: ReplyInput) => AsyncIterable<AgentEvent>,
  ): AsyncIterable<AgentEvent>;
  /** Before each reasoning step (the iteration number); may emit events or request a stop. */
  beforeReasoning?(iteration: number, ctx: MiddlewareContext): void | Promise<void>;
  /** After each reasoning step, with the reply Msg as it stands. */
  afterReasoning?(reply: Msg, ctx: MiddlewareContext): void | Promise<void>;
  /** Each model call: may change the messages or options, or replace the stream. */
  onModelCall?(
    request: ModelCallRequest,
    ctx: MiddlewareContext,
    next: (request: ModelCallRequest) => AsyncIterable<ChatChunk>,
  ): AsyncIterable<ChatChunk>;
  /** Each tool call (acting): may change the input, the outcome, or not run the tool at all. */
  onToolCall?(
    request: ToolCallRequest,
    ctx: MiddlewareContext,
    next: (request: ToolCallRequest) => Promise<ToolCallOutcome>,
  ): Promise<ToolCallOutcome>;
  /** The permission check of each call. */
  onPermission?(
    request: PermissionRequest,
    ctx: MiddlewareContext,
    next: (request: PermissionRequest) => Promise<PermissionDecision>,
  ): Promise<PermissionDecision>;
  /** Each event before it is emitted (after it is folded nothing can change it). */
  onEvent?(event: AgentEvent, ctx: MiddlewareContext): void;
}
