import type { Msg } from "../message/index.js";
import type { AgentState } from "../state/index.js";

/**
 * A message as the eval compares it: role, text, tool calls (parsed arguments) and tool results,
 * without ids, timestamps or provider extras, so a replay matches a recording made elsewhere.
 */
export interface NormalMsg {
  role: Msg["role"];
  text?: string;
  toolCalls?: Array<{ name: string; input: unknown }>;
  toolResults?: Array<{ name: string; state: string; output: string }>;
  /** Attachments (data blocks) by media type and name. */
  data?: string[];
}

/** What the agent sent the model on one call. Each field is compared only when it was recorded. */
export interface RecordedRequest {
  /** The system prompt the model saw. */
  system?: string;
  /** Names of the tools offered, in the order offered. */
  tools?: string[];
  /** The messages after the system prompt. */
  messages?: NormalMsg[];
}

/** How the permission engine treated a call: ran it, asked a person, or refused it. */
export type PermissionVerdict = "allow" | "ask" | "deny";

export interface RecordedToolCall {
  id: string;
  name: string;
  /** The parsed arguments (a raw string when they were not JSON). */
  input: unknown;
  decision?: PermissionVerdict;
  /** The person's answer, when the call asked. */
  confirmed?: boolean;
  result?: { state: string; output: string };
}

/** One model call of a recording: what the agent asked (when known) and what the model answered. */
export interface RecordedTurn {
  request?: RecordedRequest;
  thinking?: string;
  text?: string;
  toolCalls?: RecordedToolCall[];
  usage?: { inputTokens: number; outputTokens: number };
}

/**
 * A person's answer to a confirmation. Matched to the call that asks by `toolCallId`, else by
 * `tool` (answers for one tool are used in order), else it answers any call.
 */
export interface ConfirmAnswer {
  toolCallId?: string;
  tool?: string;
  confirmed: boolean;
  /** Edited arguments to run the call with. */
  input?: unknown;
  /** Permission rules to remember (`Bash(git status:*)`). */
  rules?: string[];
  /** Shown to the model when the call is refused. */
  reason?: string;
}

/** A declarative expectation, as written in a dataset file (see `scorerFromSpec`). */
export type ExpectSpec = { type: string; weight?: number; name?: string } & Record<string, unknown>;

/**
 * One eval case: the input, the answers a person gives to confirmations, and what is expected.
 * `recording` holds the model turns of a recorded session: replay plays them as the model.
 */
export interface EvalCase {
  id: string;
  description?: string;
  tags?: string[];
  input: {
    /** Sent as the first reply's input. */
    messages: Msg[];
    /** The input of each later reply, sent after the previous one ended (a conversation). */
    followUps?: Msg[][];
    /** The session to start from (its context is the history). */
    state?: AgentState;
    /** Files written into a fresh workspace directory before the run (path → content). */
    files?: Record<string, string>;
  };
  confirmations?: ConfirmAnswer[];
  recording?: { turns: RecordedTurn[] };
  expect?: ExpectSpec[];
}
