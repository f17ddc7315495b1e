import type { AgentEvent, ReplyEndEvent } from "../../../event/index.js";
import type { FinishReason, ToolCallBlock } from "../../../message/index.js";

/** One piece of the assistant message: visible text, or reasoning (`reasoning_content`, as DeepSeek and vLLM send it). */
export interface ChatDelta {
  content?: string;
  reasoning_content?: string;
}

/** A tool call the reply waits on, as the `agentscope.pending` extension field lists it. */
export interface PendingToolCall {
  tool_call_id: string;
  tool_name: string;
  /** The call's arguments (JSON text). */
  input: string;
  /** `confirm`: approve or deny it; `external`: run it and send its output. */
  kind: "confirm" | "external";
  reason?: string;
  suggested_rules?: string[];
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

/** How the reply ended, for the last chunk (or the completion's choice). */
export interface ChatFinish {
  finish_reason: "stop" | "length";
  /** Text the assistant message ends with: what waits for an answer, and how to give it. */
  suffix?: string;
  /** The reply failed: the stream ends with an error instead. */
  error?: { message: string; type: string };
  extension: AgentscopeExtension;
}

/** The `agentscope` field of the last chunk and of the completion: where to answer a paused reply. */
export interface AgentscopeExtension {
  session_id: string;
  reply_id?: string;
  status: FinishReason | "waiting" | "incomplete";
  pending?: PendingToolCall[];
  structured_output?: unknown;
}

/**
 * The running translation of one reply into one assistant message: plain data, changed only by
 * `translateChatEvent` and `finishChat`. Tool steps run server-side and are not sent as
 * `tool_calls` (the client would think it must run them); text blocks are joined by a newline, as
 * `textOf` joins them in the stored reply. Sub-agent events (with a `source`) are left out.
 */
export interface ChatTranslation {
  sessionId: string;
  replyId?: string;
  /** Text blocks started so far (the second and later ones open with a newline). */
  textBlocks: number;
  usage: ChatUsage;
  pending: PendingToolCall[];
  end?: ReplyEndEvent;
}

export function startChat(sessionId: string): ChatTranslation {
  return {
    sessionId,
    textBlocks: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    pending: [],
  };
}

/** The deltas one agent event stands for (none for most). */
export function translateChatEvent(t: ChatTranslation, event: AgentEvent): ChatDelta | undefined {
  if (event.source !== undefined) return undefined;
  switch (event.type) {
    case "REPLY_START":
      t.replyId = event.replyId;
      return undefined;
    case "TEXT_BLOCK_START":
      t.textBlocks += 1;
      return t.textBlocks > 1 ? { content: "\n" } : undefined;
    case "TEXT_BLOCK_DELTA":
      return event.delta === "" ? undefined : { content: event.delta };
    case "THINKING_BLOCK_DELTA":
      return event.delta === "" ? undefined : { reasoning_content: event.delta };
    case "MODEL_CALL_END":
      addUsage(t.usage, event);
      return undefined;
    case "REQUIRE_USER_CONFIRM":
      for (const call of event.toolCalls) t.pending.push(pendingCall(call, "confirm"));
      return undefined;
    case "REQUIRE_EXTERNAL_EXECUTION":
      for (const call of event.toolCalls) t.pending.push(pendingCall(call, "external"));
      return undefined;
    case "REPLY_END":
      t.end = event;
      return undefined;
    default:
      return undefined;
  }
}

/** How the reply ended, once its events are over. */
export function finishChat(t: ChatTranslation): ChatFinish {
  const extension: AgentscopeExtension = {
    session_id: t.sessionId,
    ...(t.replyId ? { reply_id: t.replyId } : {}),
    status: "completed",
  };
  const end = t.end;
  if (end === undefined && t.pending.length > 0) {
    extension.status = "waiting";
    extension.pending = t.pending;
    return { finish_reason: "stop", suffix: waitingText(t), extension };
  }
  if (end === undefined) {
    extension.status = "incomplete";
    return {
      finish_reason: "stop",
      error: { message: "the reply stopped before it finished; see the server log", type: "internal" },
      extension,
    };
  }
  extension.status = end.finishedReason;
  if (end.structuredOutput !== undefined) extension.structured_output = end.structuredOutput;
  if (end.finishedReason === "error") {
    return {
      finish_reason: "stop",
      error: { message: end.error?.message ?? "the reply failed", type: end.error?.type ?? "internal" },
      extension,
    };
  }
  const suffix =
    end.structuredOutput !== undefined && t.textBlocks === 0
      ? JSON.stringify(end.structuredOutput)
      : undefined;
  return {
    finish_reason: end.finishedReason === "exceed_max_iters" ? "length" : "stop",
    ...(suffix !== undefined ? { suffix } : {}),
    extension,
  };
}

function addUsage(
  usage: ChatUsage,
  call: { inputTokens: number; outputTokens: number; cacheReadTokens?: number },
) {
  usage.prompt_tokens += call.inputTokens;
  usage.completion_tokens += call.outputTokens;
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  if (call.cacheReadTokens) {
    usage.prompt_tokens_details = {
      cached_tokens: (usage.prompt_tokens_details?.cached_tokens ?? 0) + call.cacheReadTokens,
    };
  }
}

function pendingCall(
  call: ToolCallBlock & { reason?: string; suggestedRules?: string[] },
  kind: PendingToolCall["kind"],
): PendingToolCall {
  return {
    tool_call_id: call.id,
    tool_name: call.name,
    input: call.input,
    kind,
    ...(call.reason ? { reason: call.reason } : {}),
    ...(call.suggestedRules?.length ? { suggested_rules: call.suggestedRules } : {}),
  };
}

function describe(call: PendingToolCall): string {
  const args = call.input.length > 200 ? `${call.input.slice(0, 200)}…` : call.input;
  return `${call.tool_name}(${args}) [tool call ${call.tool_call_id}]${call.reason ? `: ${call.reason}` : ""}`;
}

/** The assistant's closing words of a paused reply: each waiting call, and the API call that answers it. */
function waitingText(t: ChatTranslation): string {
  const confirm = t.pending.filter((c) => c.kind === "confirm");
  const external = t.pending.filter((c) => c.kind === "external");
  const lines: string[] = [t.textBlocks > 0 ? "\n\n" : "", "The agent is waiting before it goes on."];
  const session = encodeURIComponent(t.sessionId);
  if (confirm.length > 0) {
    lines.push(`It asks for approval of: ${confirm.map(describe).join("; ")}.`);
    lines.push(
      `Approve or deny through POST /v1/sessions/${session}/confirm with {"answers":[{"toolCallId":"<id>","confirmed":true}]}.`,
    );
  }
  if (external.length > 0) {
    lines.push(`It needs the output of: ${external.map(describe).join("; ")}.`);
    lines.push(
      `Send it through POST /v1/sessions/${session}/external-results with {"toolResults":[{"type":"tool_result","id":"<id>","name":"<tool>","output":"…","state":"success"}]}.`,
    );
  }
  const [first, ...rest] = lines;
  return first + rest.join(" ");
}
