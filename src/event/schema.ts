import { z } from "zod";
import { parseJsonOrThrow, parseWith, ToolResultBlockSchema, ValidationError } from "../message/index.js";
import { ConfirmResultSchema } from "../protocol/confirm-result.js";
import type { AgentEvent, InputEvent } from "./types.js";

const inputBase = {
  id: z.string().optional(),
  createdAt: z.string().optional(),
  replyId: z.string().min(1),
  source: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
};

export { ConfirmResultSchema };

export const UserConfirmResultSchema = z.object({
  ...inputBase,
  type: z.literal("USER_CONFIRM_RESULT"),
  confirmResults: z.array(ConfirmResultSchema).min(1),
});

export const ExternalExecutionResultSchema = z.object({
  ...inputBase,
  type: z.literal("EXTERNAL_EXECUTION_RESULT"),
  toolResults: z.array(ToolResultBlockSchema).min(1),
});

export const UserInterruptSchema = z.object({
  ...inputBase,
  type: z.literal("USER_INTERRUPT"),
  reason: z.string().optional(),
});

export const InputEventSchema = z.discriminatedUnion("type", [
  UserConfirmResultSchema,
  ExternalExecutionResultSchema,
  UserInterruptSchema,
]);

/** Validates an input event from outside (JSON string or parsed); names the first bad field. */
export function parseInputEvent(json: unknown): InputEvent {
  const value = typeof json === "string" ? parseJsonOrThrow(json, "input event") : json;
  const parsed = parseWith(InputEventSchema, value, "input event");
  return {
    ...parsed,
    id: parsed.id ?? `evt_in_${Date.now().toString(36)}`,
    createdAt: parsed.createdAt ?? new Date().toISOString(),
  } as InputEvent;
}

/** Type names accepted on input as aliases (AgentScope Java). */
export const EVENT_TYPE_ALIASES: Readonly<Record<string, AgentEvent["type"]>> = {
  AGENT_START: "REPLY_START",
  AGENT_END: "REPLY_END",
};

export const EVENT_TYPES: ReadonlySet<string> = new Set<AgentEvent["type"]>([
  "REPLY_START",
  "REPLY_END",
  "MODEL_CALL_START",
  "MODEL_CALL_END",
  "TEXT_BLOCK_START",
  "TEXT_BLOCK_DELTA",
  "TEXT_BLOCK_END",
  "THINKING_BLOCK_START",
  "THINKING_BLOCK_DELTA",
  "THINKING_BLOCK_END",
  "DATA_BLOCK_START",
  "DATA_BLOCK_DELTA",
  "DATA_BLOCK_END",
  "HINT_BLOCK",
  "TOOL_CALL_START",
  "TOOL_CALL_DELTA",
  "TOOL_CALL_END",
  "TOOL_RESULT_START",
  "TOOL_RESULT_TEXT_DELTA",
  "TOOL_RESULT_DATA_DELTA",
  "TOOL_RESULT_END",
  "EXCEED_MAX_ITERS",
  "REQUIRE_USER_CONFIRM",
  "REQUIRE_EXTERNAL_EXECUTION",
  "USER_CONFIRM_RESULT",
  "EXTERNAL_EXECUTION_RESULT",
  "USER_INTERRUPT",
  "ALL_TOOLS_DENIED",
  "REQUEST_STOP",
  "SUBAGENT_EXPOSED",
  "DECISION",
  "CUSTOM",
]);

const EventEnvelopeSchema = z.looseObject({
  id: z.string().min(1),
  createdAt: z.string(),
  type: z.string(),
  replyId: z.string().min(1),
});

/**
 * Checks the envelope of a recorded event (a trace file, a stored event log) and maps type aliases.
 * Payload fields are trusted: events are produced by this library, not typed by people.
 */
export function parseEvent(json: unknown): AgentEvent {
  const value = typeof json === "string" ? parseJsonOrThrow(json, "event") : json;
  const envelope = parseWith(EventEnvelopeSchema, value, "event");
  const type = EVENT_TYPE_ALIASES[envelope.type] ?? envelope.type;
  if (!EVENT_TYPES.has(type))
    throw new ValidationError("event", "type", `unknown event type "${envelope.type}"`);
  return { ...envelope, type } as AgentEvent;
}
