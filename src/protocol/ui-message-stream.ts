/**
 * The AI SDK's UI message stream (the wire `useChat` reads, version `v1` of `ai` 7), as far as the
 * service speaks it: the chunk types it writes, the metadata it puts on the assistant message, and
 * the header names. Plain types (browser-safe); the mapping from agent events is in
 * app/bridges/ai-sdk, the client transport in client/.
 */

/** Response header every UI message stream carries, and its value. */
export const UI_MESSAGE_STREAM_HEADER = "x-vercel-ai-ui-message-stream";
export const UI_MESSAGE_STREAM_VERSION = "v1";
/** Request header (`1`) asking for every agent event as a transient `data-agentscope-event` chunk too. */
export const AGENTSCOPE_EVENTS_HEADER = "x-agentscope-events";
/** The transient data chunk that carries one agent event (only with AGENTSCOPE_EVENTS_HEADER). */
export const AGENTSCOPE_EVENT_PART = "data-agentscope-event";

/** The path of an agent's chat endpoint (`useChat`'s `api`); `<api>/<chatId>/stream` resumes, `/stop` stops. */
export function uiChatPath(agent: string): string {
  return `/v1/ai-sdk/${encodeURIComponent(agent)}/chat`;
}

/** Tokens summed over every model call of the reply so far. */
export interface UiMessageUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens?: number;
}

/** `message.metadata` of an assistant message the service streamed. */
export interface AgentscopeMessageMetadata {
  sessionId: string;
  replyId: string;
  usage?: UiMessageUsage;
  /** How the reply ended (`waiting`: paused for an answer). Set by the finish chunk. */
  status?: "completed" | "interrupted" | "exceed_max_iters" | "stopped" | "error" | "waiting";
  structuredOutput?: unknown;
}

/** `finish`'s reason, as the AI SDK names them. */
export type UiFinishReason = "stop" | "length" | "tool-calls" | "error" | "interrupted" | "other";

/** One chunk of the stream (the subset the service writes). Every chunk is one SSE `data:` frame. */
export type UiMessageChunk =
  | { type: "start"; messageId: string; messageMetadata?: AgentscopeMessageMetadata }
  | { type: "finish"; finishReason: UiFinishReason; messageMetadata?: Partial<AgentscopeMessageMetadata> }
  | { type: "message-metadata"; messageMetadata: Partial<AgentscopeMessageMetadata> }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "error"; errorText: string }
  | { type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; id: string }
  | { type: "text-delta" | "reasoning-delta"; id: string; delta: string }
  | { type: "file"; url: string; mediaType: string }
  | {
      type: "tool-input-start";
      toolCallId: string;
      toolName: string;
      dynamic: true;
      providerExecuted?: boolean;
    }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      dynamic: true;
      providerExecuted?: boolean;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string; reason?: string }
  | { type: "tool-approval-response"; approvalId: string; approved: boolean; reason?: string }
  | {
      type: "tool-output-available";
      toolCallId: string;
      output: unknown;
      dynamic: true;
      preliminary?: boolean;
      providerExecuted?: boolean;
    }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean };
