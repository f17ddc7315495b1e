import type { AgentEvent, ReplyEndEvent } from "../../event/index.js";
import type { ToolCallBlock, ToolResultState } from "../../message/index.js";
import { askRequest, asksOfEvent, type OpenAsk } from "../server/runtime/open-asks.js";
import {
  AGUI_PROTOCOL_VERSION,
  type AguiContentPart,
  type AguiEvent,
  type AguiInterrupt,
  type AguiTokenUsage,
} from "./protocol.js";

/** Interrupt reasons: AG-UI's core `tool_call` for a confirmation, our own for external execution. */
export const CONFIRM_REASON = "tool_call";
export const EXTERNAL_REASON = "agentscope:external_execution";

/** What the resume payload of a confirmation looks like (AG-UI's approve-with-edits pattern). */
export const CONFIRM_RESPONSE_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    editedArgs: { type: "object", description: "Full replacement of the tool arguments. Not merged." },
    rules: {
      type: "array",
      items: { type: "string" },
      description: "Permission rules to allow from now on (e.g. the interrupt's suggestedRules).",
    },
    reason: { type: "string", description: "Shown to the model when the call is refused." },
  },
  required: ["approved"],
} as const;

/** What the resume payload of an external execution looks like. */
export const EXTERNAL_RESPONSE_SCHEMA = {
  type: "object",
  properties: {
    output: { type: "string", description: "The tool's output, as the model will read it." },
    isError: { type: "boolean" },
  },
  required: ["output"],
} as const;

/**
 * Interrupt ids name their kind and the tool call: `confirm:<callId>`, `external:<callId>`; an ask
 * of another session (a spawned sub-agent's) names it too: `confirm:<sessionId>:<callId>`.
 */
export function interruptId(kind: "confirm" | "external", toolCallId: string, sessionId?: string): string {
  return sessionId === undefined ? `${kind}:${toolCallId}` : `${kind}:${sessionId}:${toolCallId}`;
}

/**
 * The running translation of one AG-UI run: plain data, changed only by `translateEvent` and
 * `finishAguiRun`. Output depends on this state and the event alone (no clock, no I/O, no ids).
 */
export interface AguiTranslation {
  threadId: string;
  runId: string;
  /** The client's state; the run's STATE_SNAPSHOT keeps it and adds an `agentscope` key. */
  clientState: unknown;
  sessionId?: string;
  replyId?: string;
  agentName?: string;
  /** The assistant message the current model call writes to (text and tool calls share it). */
  stepMessageId?: string;
  /** Open text blocks: blockId → AG-UI messageId. */
  text: Map<string, string>;
  reasoning: Set<string>;
  toolCalls: Set<string>;
  steps: string[];
  /** Tool outputs being collected until their TOOL_RESULT_END. */
  results: Map<string, CollectedOutput>;
  interrupts: AguiInterrupt[];
  end?: ReplyEndEvent;
  /** The run answered other sessions only (spawned sub-agents'): it follows no reply of its own. */
  elsewhere?: boolean;
  usage: Map<string, AguiTokenUsage>;
  finished: boolean;
}

/** Starts a run: the translation state and its RUN_STARTED event. */
export function startAguiRun(run: { threadId: string; runId: string; state?: unknown }): {
  translation: AguiTranslation;
  events: AguiEvent[];
} {
  const translation: AguiTranslation = {
    threadId: run.threadId,
    runId: run.runId,
    clientState: run.state,
    text: new Map(),
    reasoning: new Set(),
    toolCalls: new Set(),
    steps: [],
    results: new Map(),
    interrupts: [],
    usage: new Map(),
    finished: false,
  };
  const events: AguiEvent[] = [
    {
      type: "RUN_STARTED",
      threadId: run.threadId,
      runId: run.runId,
      protocolVersion: AGUI_PROTOCOL_VERSION,
    },
  ];
  return { translation, events };
}

/** Translates one agent event into the AG-UI events it stands for (often none or one). */
export function translateEvent(t: AguiTranslation, event: AgentEvent): AguiEvent[] {
  if (t.finished) return [];
  if (event.source !== undefined) {
    // a sub-run's events are not part of this run, but what it asks is one of the run's interrupts
    addInterrupts(t, asksOfEvent(event, t.sessionId ?? t.threadId));
    return [];
  }
  const timestamp = Date.parse(event.createdAt);
  const out: AguiEvent[] = [];
  const emit = (e: AguiEvent) => {
    out.push(Number.isFinite(timestamp) ? { ...e, timestamp } : e);
  };
  switch (event.type) {
    case "REPLY_START":
      t.sessionId = event.sessionId;
      t.replyId = event.replyId;
      t.agentName = event.name;
      break;
    case "MODEL_CALL_START":
      t.stepMessageId = undefined;
      t.steps.push(event.modelName);
      emit({ type: "STEP_STARTED", stepName: event.modelName });
      break;
    case "MODEL_CALL_END": {
      addUsage(t, event.modelName, event);
      const index = t.steps.lastIndexOf(event.modelName);
      if (index >= 0) {
        t.steps.splice(index, 1);
        emit({ type: "STEP_FINISHED", stepName: event.modelName });
      }
      break;
    }
    case "TEXT_BLOCK_START": {
      t.stepMessageId ??= event.blockId;
      t.text.set(event.blockId, t.stepMessageId);
      emit({
        type: "TEXT_MESSAGE_START",
        messageId: t.stepMessageId,
        role: "assistant",
        ...(t.agentName ? { name: t.agentName } : {}),
      });
      break;
    }
    case "TEXT_BLOCK_DELTA": {
      const messageId = t.text.get(event.blockId);
      if (messageId !== undefined && event.delta !== "") {
        emit({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: event.delta });
      }
      break;
    }
    case "TEXT_BLOCK_END": {
      const messageId = t.text.get(event.blockId);
      if (messageId !== undefined) {
        t.text.delete(event.blockId);
        emit({ type: "TEXT_MESSAGE_END", messageId });
      }
      break;
    }
    case "THINKING_BLOCK_START":
      t.reasoning.add(event.blockId);
      emit({ type: "REASONING_START", messageId: event.blockId });
      emit({ type: "REASONING_MESSAGE_START", messageId: event.blockId, role: "reasoning" });
      break;
    case "THINKING_BLOCK_DELTA":
      if (t.reasoning.has(event.blockId) && event.delta !== "") {
        emit({ type: "REASONING_MESSAGE_CONTENT", messageId: event.blockId, delta: event.delta });
      }
      break;
    case "THINKING_BLOCK_END":
      if (t.reasoning.delete(event.blockId)) {
        emit({ type: "REASONING_MESSAGE_END", messageId: event.blockId });
        emit({ type: "REASONING_END", messageId: event.blockId });
      }
      break;
    case "TOOL_CALL_START":
      t.stepMessageId ??= `${event.toolCallId}-message`;
      t.toolCalls.add(event.toolCallId);
      emit({
        type: "TOOL_CALL_START",
        toolCallId: event.toolCallId,
        toolCallName: event.toolCallName,
        parentMessageId: t.stepMessageId,
      });
      break;
    case "TOOL_CALL_DELTA":
      if (t.toolCalls.has(event.toolCallId) && event.delta !== "") {
        emit({ type: "TOOL_CALL_ARGS", toolCallId: event.toolCallId, delta: event.delta });
      }
      break;
    case "TOOL_CALL_END":
      if (t.toolCalls.delete(event.toolCallId)) emit({ type: "TOOL_CALL_END", toolCallId: event.toolCallId });
      break;
    case "TOOL_RESULT_START":
      t.results.set(event.toolCallId, { parts: [], data: new Map() });
      break;
    case "TOOL_RESULT_TEXT_DELTA":
      appendText(t.results.get(event.toolCallId), event.delta);
      break;
    case "TOOL_RESULT_DATA_DELTA":
      appendData(t.results.get(event.toolCallId), event);
      break;
    case "TOOL_RESULT_END": {
      const output = t.results.get(event.toolCallId);
      t.results.delete(event.toolCallId);
      emit(toolResult(event.toolCallId, output?.parts ?? [], event.state));
      break;
    }
    case "REQUIRE_USER_CONFIRM":
    case "REQUIRE_EXTERNAL_EXECUTION":
      addInterrupts(t, asksOfEvent(event, t.sessionId ?? t.threadId));
      break;
    case "REPLY_END":
      t.end = event;
      break;
    case "CUSTOM":
      emit({ type: "CUSTOM", name: event.name, value: event.value });
      break;
    default:
      break;
  }
  return out;
}

/**
 * Adds interrupts for `asks` (those of another session too: a spawned sub-agent's, found when the
 * run ends); an ask asked again (an edited call decided again) replaces its interrupt.
 */
export function addInterrupts(t: AguiTranslation, asks: readonly OpenAsk[]): void {
  for (const ask of asks) {
    const interrupt = askInterrupt(ask, t.sessionId ?? t.threadId);
    const index = t.interrupts.findIndex((i) => i.id === interrupt.id);
    if (index >= 0) t.interrupts[index] = interrupt;
    else t.interrupts.push(interrupt);
  }
}

/**
 * Ends the run once the agent's stream is over (or threw `error`): closes what is still open, then
 * a STATE_SNAPSHOT and RUN_FINISHED (success, interrupt or cancelled), or RUN_ERROR.
 * Returns nothing when the run has already ended.
 */
export function finishAguiRun(t: AguiTranslation, error?: { message: string; code?: string }): AguiEvent[] {
  if (t.finished) return [];
  t.finished = true;
  const out = closeOpen(t);
  const failure =
    error ??
    (t.end?.finishedReason === "error"
      ? { message: t.end.error?.message ?? "the reply failed", code: t.end.error?.type ?? "error" }
      : t.end === undefined && t.interrupts.length === 0 && !t.elsewhere
        ? {
            message: "the reply stopped before it finished; see the server log",
            code: "incomplete",
          }
        : undefined);
  if (failure) {
    out.push({
      type: "RUN_ERROR",
      message: failure.message,
      ...(failure.code ? { code: failure.code } : {}),
    });
    return out;
  }
  // open asks (a spawned sub-agent's too, after this reply ended) make the run end on an interrupt
  const waiting = t.interrupts.length > 0 || (t.end === undefined && !t.elsewhere);
  out.push({ type: "STATE_SNAPSHOT", snapshot: snapshot(t, waiting) });
  const usage = [...t.usage.values()];
  out.push({
    type: "RUN_FINISHED",
    threadId: t.threadId,
    runId: t.runId,
    outcome: waiting
      ? { type: "interrupt", interrupts: t.interrupts }
      : t.end?.finishedReason === "interrupted"
        ? { type: "cancelled" }
        : { type: "success" },
    ...(t.end?.structuredOutput !== undefined ? { result: t.end.structuredOutput } : {}),
    ...(usage.length > 0 ? { usage } : {}),
    ...(t.end ? { metadata: { agentscope: { finishedReason: t.end.finishedReason } } } : {}),
  });
  return out;
}

function closeOpen(t: AguiTranslation): AguiEvent[] {
  const out: AguiEvent[] = [];
  for (const messageId of new Set(t.text.values())) out.push({ type: "TEXT_MESSAGE_END", messageId });
  for (const messageId of t.reasoning) {
    out.push({ type: "REASONING_MESSAGE_END", messageId }, { type: "REASONING_END", messageId });
  }
  for (const toolCallId of t.toolCalls) out.push({ type: "TOOL_CALL_END", toolCallId });
  for (const stepName of t.steps) out.push({ type: "STEP_FINISHED", stepName });
  t.text.clear();
  t.reasoning.clear();
  t.toolCalls.clear();
  t.steps = [];
  return out;
}

function snapshot(t: AguiTranslation, waiting: boolean): unknown {
  const base =
    typeof t.clientState === "object" && t.clientState !== null && !Array.isArray(t.clientState)
      ? (t.clientState as Record<string, unknown>)
      : {};
  return {
    ...base,
    agentscope: {
      sessionId: t.sessionId,
      replyId: t.replyId,
      status: waiting ? "waiting" : (t.end?.finishedReason ?? "completed"),
      ...(waiting ? { interrupts: t.interrupts.map((i) => i.id) } : {}),
    },
  };
}

function addUsage(
  t: AguiTranslation,
  model: string,
  call: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number },
): void {
  const usage = t.usage.get(model) ?? { model, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  usage.inputTokens = (usage.inputTokens ?? 0) + call.inputTokens;
  usage.outputTokens = (usage.outputTokens ?? 0) + call.outputTokens;
  usage.totalTokens = usage.inputTokens + usage.outputTokens;
  if (call.cacheReadTokens) usage.cachedInputTokens = (usage.cachedInputTokens ?? 0) + call.cacheReadTokens;
  if (call.cacheWriteTokens) {
    usage.cacheWriteInputTokens = (usage.cacheWriteInputTokens ?? 0) + call.cacheWriteTokens;
  }
  t.usage.set(model, usage);
}

function describeCall(call: ToolCallBlock): string {
  const args = call.input.length > 200 ? `${call.input.slice(0, 200)}…` : call.input;
  return `${call.name}(${args})`;
}

/** Who asks, when it is not the thread's own agent: the nested run's path, or the spawned session. */
function askedBy(ask: OpenAsk, threadId: string): string {
  if (ask.sessionId !== threadId) return ` (sub-agent ${ask.subagentId ?? ask.sessionId})`;
  return ask.source ? ` (sub-agent ${ask.source})` : "";
}

/**
 * The interrupt for one open ask of the thread's session `threadId`: a confirmation (`tool_call`) or an external
 * run; `metadata.agentscope` says where it goes (`askRequest`: session, reply, nested source or
 * spawned sub-agent, tool, input, reason, the rules it offers).
 */
export function askInterrupt(ask: OpenAsk, threadId: string): AguiInterrupt {
  const confirm = ask.kind === "confirm";
  const who = askedBy(ask, threadId);
  return {
    id: interruptId(ask.kind, ask.call.id, ask.sessionId === threadId ? undefined : ask.sessionId),
    reason: confirm ? CONFIRM_REASON : EXTERNAL_REASON,
    message: confirm
      ? `Allow ${describeCall(ask.call)}${who}?${ask.reason ? ` ${ask.reason}` : ""}`
      : `Run ${describeCall(ask.call)}${who} and send its output.`,
    toolCallId: ask.call.id,
    responseSchema: confirm ? CONFIRM_RESPONSE_SCHEMA : EXTERNAL_RESPONSE_SCHEMA,
    metadata: { agentscope: askRequest(ask) },
  };
}

interface CollectedOutput {
  parts: AguiContentPart[];
  /** Data parts by the blockId that correlates their fragments. */
  data: Map<string, number>;
}

function appendText(output: CollectedOutput | undefined, delta: string): void {
  if (!output) return;
  const last = output.parts[output.parts.length - 1];
  if (last?.type === "text") last.text += delta;
  else output.parts.push({ type: "text", text: delta });
}

function appendData(
  output: CollectedOutput | undefined,
  event: Extract<AgentEvent, { type: "TOOL_RESULT_DATA_DELTA" }>,
): void {
  if (!output) return;
  const index = output.data.get(event.blockId);
  if (index !== undefined) {
    const part = output.parts[index]!;
    if (part.type !== "text" && part.source.type === "data" && event.data) part.source.value += event.data;
    return;
  }
  output.data.set(event.blockId, output.parts.length);
  output.parts.push({
    type: partType(event.mediaType),
    source:
      event.url !== undefined
        ? { type: "url", value: event.url, mimeType: event.mediaType }
        : { type: "data", value: event.data ?? "", mimeType: event.mediaType },
  });
}

function partType(mediaType: string): "image" | "audio" | "video" | "document" {
  if (mediaType.startsWith("image/")) return "image";
  if (mediaType.startsWith("audio/")) return "audio";
  if (mediaType.startsWith("video/")) return "video";
  return "document";
}

function toolResult(toolCallId: string, parts: AguiContentPart[], state: ToolResultState): AguiEvent {
  const content = parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("") : parts;
  return {
    type: "TOOL_CALL_RESULT",
    messageId: `${toolCallId}-result`,
    toolCallId,
    content,
    role: "tool",
    metadata: { agentscope: { state } },
  };
}
