import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import type { AgentEvent } from "../../event/index.js";
import { newId, nowIso } from "../../message/index.js";

/** Where our own event rides along in an A2A update's metadata (an A2AAgent client reads it back). */
export const EVENT_METADATA_KEY = "agentscope.event";

/**
 * Where an `input-required` status's data part lists what is asked: one entry per waiting call
 * (`toolCallId`, `toolName`, `input`, `reason`, the `replyId` and `sessionId` it waits in, and
 * `source` when a sub-agent asks), the same request an AG-UI interrupt carries.
 */
export const REQUESTS_KEY = "agentscope.requests";

export const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

export const dataPart = (value: unknown): Part => ({
  content: { $case: "data", value },
  metadata: undefined,
  filename: "",
  mediaType: "application/json",
});

export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return {
    messageId: newId("msg"),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function statusOf(state: TaskState, message?: Message): NonNullable<Task["status"]> {
  return { state, message, timestamp: nowIso() };
}

export function newTask(taskId: string, contextId: string, history: Message[]): Task {
  return {
    id: taskId,
    contextId,
    status: statusOf(TaskState.TASK_STATE_SUBMITTED),
    artifacts: [],
    history,
    metadata: undefined,
  };
}

/** The text of a message's text parts, joined by newlines. */
export function textOfParts(parts: Part[]): string {
  return parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter(Boolean)
    .join("\n");
}

/** The values of a message's data parts. */
export function dataOfParts(parts: Part[]): unknown[] {
  return parts.flatMap((part) => (part.content?.$case === "data" ? [part.content.value] : []));
}

/** A line per waiting call, for a person reading an input-required status. */
export function describeWaiting(event: AgentEvent): string {
  if (event.type !== "REQUIRE_USER_CONFIRM" && event.type !== "REQUIRE_EXTERNAL_EXECUTION") return "";
  const verb = event.type === "REQUIRE_USER_CONFIRM" ? "Confirm" : "Run externally";
  const who = event.source ? ` (${event.source})` : "";
  return event.toolCalls.map((call) => `${verb}${who}: ${call.name}(${call.input})`).join("\n");
}
