import type { AgentEvent, InputEvent } from "../event/index.js";
import type { DataBlock, TextBlock } from "../message/index.js";
import { AgentScopeError, type ErrorType } from "../message/index.js";
import type { JsonSchema, ToolSchema } from "../model/index.js";
import type { PermissionContext, PermissionSubject } from "../permission/index.js";
import type { TaskBoard } from "./task-board.js";

/** What a running tool can see and do. */
export interface ToolContext {
  signal: AbortSignal;
  sessionId: string;
  replyId: string;
  toolCallId: string;
  /** Per-session tool data (e.g. the Read tool's cache); persisted in the agent state. Keep it JSON. */
  state: Record<string, unknown>;
  permission: PermissionContext;
  /** Ask the agent to stop after this tool step (emits REQUEST_STOP). */
  requestStop(reason?: string): void;
  /** Slash path of the agent running this tool: its name, or its `source` when it runs as a sub-agent. */
  source?: string;
  /**
   * Puts an event of a nested run (a sub-agent) into this reply's stream, live. Events of another
   * reply (another replyId) pass through without changing this reply; one with this reply's id
   * folds into it (e.g. a MODEL_CALL_END that rolls a sub-run's usage up).
   */
  emit?(event: AgentEvent): void;
  /**
   * Called by a tool whose nested run paused (asks for a confirmation or external results): the
   * call gets no result yet and this reply pauses too. `replyIds` are the nested reply ids whose
   * answers must come back to this call (they continue it with `resume` set).
   */
  suspend?(pause: { replyIds: string[]; waitingFor: "user_confirm" | "external_execution" }): void;
  /** Set when the call continues after `suspend`: the answer for its nested run (same input as before). */
  resume?: InputEvent;
  /** The session's task list (`AgentState.tasks`); each change is a `task_updated` event. Set by the agent. */
  tasks?: TaskBoard;
  /**
   * The effect id of this call: the same for every run of it (a retry after a crash, a resume on
   * another replica), different for every other call. Pass it to the system the tool changes (a
   * payment API's `Idempotency-Key`) so a second run is the same effect, not a second one. Set by
   * the agent, which stores it with the session before a tool that is not `readOnly` starts.
   */
  idempotencyKey?: string;
}

/** A fragment of streamed tool output: text, or a text/data block. */
export type ToolChunk = string | TextBlock | DataBlock;

/** A finished tool output: a string, blocks, or any JSON value (sent to the model as JSON). */
export type ToolOutput = unknown;

export type ToolCallReturn = ToolOutput | Promise<ToolOutput> | AsyncIterable<ToolChunk>;

/** Thrown by `Tool.parse` when the model's arguments do not fit the schema; the model reads the message. */
export class ToolInputError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(message: string) {
    super(message);
    this.name = "ToolInputError";
  }
}

/**
 * What a call would change in a file, for the diff a person sees before approving it
 * (`Tool.preview`). `after` is the new text: with `before`, the replacement of that text (an edit);
 * without, the whole new content of the file (a write, diffed against the file as it is now).
 */
export interface ToolChangePreview {
  /** The file, relative to the session's workspace root (or absolute). */
  path: string;
  before?: string;
  after: string;
}

/**
 * A tool. `parse` validates the model's arguments (throwing ToolInputError); `call` runs it and
 * returns a value, blocks, or an async iterable of chunks that stream as TOOL_RESULT deltas.
 * An `external` tool is never run in-process: the reply pauses with REQUIRE_EXTERNAL_EXECUTION.
 */
// biome-ignore lint/suspicious/noExplicitAny: a toolkit holds tools of any input type
export interface Tool<I = any> extends PermissionSubject {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  readOnly: boolean;
  /** Safe to run at the same time as other concurrency-safe calls. */
  concurrencySafe: boolean;
  external?: boolean;
  /**
   * Running the call twice with the same `ctx.idempotencyKey` has the effect of running it once.
   * A call cut off while it ran (a crash) is then run again with that key by itself; any other
   * call whose outcome is unknown is asked about first.
   */
  idempotent?: boolean;
  parse(input: unknown): I;
  call(input: I, ctx: ToolContext): ToolCallReturn;
  /**
   * The file change a call would make, sent with its approval ask (REQUIRE_USER_CONFIRM's
   * `preview`) so a client can show a diff. Called only when a call asks for approval, never on the
   * run path; keep it quick and pure (a throw or a malformed answer leaves the ask without a preview).
   */
  preview?(input: I): ToolChangePreview | undefined;
}

export function toolSchemaOf(tool: Pick<Tool, "name" | "description" | "inputSchema">): ToolSchema {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}
