/**
 * The AG-UI 1.0 wire shapes this endpoint emits and reads: our own declarations of the protocol's
 * JSON (the `@ag-ui/core` package is not a runtime dependency), checked against it in the tests.
 */

export const AGUI_PROTOCOL_VERSION = "1.0";

/** Token usage for one model, as RUN_FINISHED.usage carries it. */
export interface AguiTokenUsage {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** Something a paused run needs before it continues; a resume entry answers it by `id`. */
export interface AguiInterrupt {
  id: string;
  /** `tool_call` for a confirmation; `agentscope:external_execution` for a tool run outside. */
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export type AguiRunOutcome =
  | { type: "success" }
  | { type: "interrupt"; interrupts: AguiInterrupt[] }
  | { type: "cancelled" };

export type AguiContentPart =
  | { type: "text"; text: string }
  | {
      type: "image" | "audio" | "video" | "document";
      source:
        | { type: "data"; value: string; mimeType: string }
        | { type: "url"; value: string; mimeType?: string };
    };

interface Base {
  timestamp?: number;
  metadata?: Record<string, unknown>;
}

/** The AG-UI events this endpoint produces (a subset of the protocol's 31). */
export type AguiEvent = Base &
  (
    | { type: "RUN_STARTED"; threadId: string; runId: string; protocolVersion: string }
    | {
        type: "RUN_FINISHED";
        threadId: string;
        runId: string;
        outcome: AguiRunOutcome;
        result?: unknown;
        usage?: AguiTokenUsage[];
      }
    | { type: "RUN_ERROR"; message: string; code?: string }
    | { type: "STEP_STARTED"; stepName: string }
    | { type: "STEP_FINISHED"; stepName: string }
    | { type: "TEXT_MESSAGE_START"; messageId: string; role: "assistant"; name?: string }
    | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
    | { type: "TEXT_MESSAGE_END"; messageId: string }
    | { type: "REASONING_START"; messageId: string }
    | { type: "REASONING_MESSAGE_START"; messageId: string; role: "reasoning" }
    | { type: "REASONING_MESSAGE_CONTENT"; messageId: string; delta: string }
    | { type: "REASONING_MESSAGE_END"; messageId: string }
    | { type: "REASONING_END"; messageId: string }
    | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
    | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
    | { type: "TOOL_CALL_END"; toolCallId: string }
    | {
        type: "TOOL_CALL_RESULT";
        messageId: string;
        toolCallId: string;
        content: string | AguiContentPart[];
        role: "tool";
      }
    | { type: "STATE_SNAPSHOT"; snapshot: unknown }
    | { type: "CUSTOM"; name: string; value?: unknown }
  );

export type AguiEventType = AguiEvent["type"];

/** One SSE frame: `data: <json>` and a blank line (AG-UI clients read only `data:` lines). */
export function aguiFrame(event: AguiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}
