import { z } from "zod";
import type { ConfirmResult, InputEvent } from "../../event/index.js";
import { externalExecutionResult, userConfirmResult, userInterrupt } from "../../event/index.js";
import {
  AgentScopeError,
  type ContentBlock,
  createMsg,
  type ErrorType,
  type Msg,
  type ToolCallBlock,
  type ToolResultBlock,
  textBlock,
} from "../../message/index.js";
import type { OpenAsk } from "../server/runtime/open-asks.js";
import { interruptId } from "./translate.js";

const PartSource = z.union([
  z.object({ type: z.literal("data"), value: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal("url"), value: z.string(), mimeType: z.string().optional() }),
  z.object({ type: z.literal("file"), value: z.string(), mimeType: z.string().optional() }).loose(),
]);
const ContentPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }).loose(),
  z.object({ type: z.enum(["image", "audio", "video", "document"]), source: PartSource }).loose(),
]);
const Message = z
  .object({
    id: z.string().min(1),
    role: z.enum(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]),
    content: z.unknown().optional(),
  })
  .loose();
const ResumeEntry = z.object({
  interruptId: z.string().min(1),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** The AG-UI RunAgentInput this endpoint accepts. */
export const RunAgentInputSchema = z.object({
  threadId: z.string().min(1).max(200),
  runId: z.string().min(1).max(200),
  protocolVersion: z.string().optional(),
  parentRunId: z.string().optional(),
  state: z.unknown().optional(),
  messages: z.array(Message).default([]),
  tools: z.array(z.object({ name: z.string(), description: z.string().optional() }).loose()).default([]),
  context: z.array(z.object({ description: z.string(), value: z.string() })).default([]),
  forwardedProps: z.unknown().optional(),
  resume: z.array(ResumeEntry).optional(),
});
export type RunAgentInput = z.infer<typeof RunAgentInputSchema>;
export type ResumeEntry = z.infer<typeof ResumeEntry>;

const ConfirmPayload = z.object({
  approved: z.boolean(),
  editedArgs: z.record(z.string(), z.unknown()).optional(),
  rules: z.array(z.string()).optional(),
  reason: z.string().optional(),
});
const ExternalPayload = z.object({ output: z.string(), isError: z.boolean().optional() });

/** A request the endpoint cannot act on; the route answers it with RUN_ERROR (code `invalid_request`). */
export class AguiInputError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(message: string) {
    super(message);
    this.name = "AguiInputError";
  }
}

/**
 * The user messages of `messages` the session has not seen (by id), as Msgs keeping their ids.
 * AG-UI clients send the whole conversation each run; only the new user turns are input.
 */
export function newUserMessages(messages: RunAgentInput["messages"], known: ReadonlySet<string>): Msg[] {
  const out: Msg[] = [];
  for (const message of messages) {
    if (message.role !== "user" || known.has(message.id)) continue;
    const content = userContent(message.content, message.id);
    if (content.length > 0) out.push(createMsg("user", content, { id: message.id }));
  }
  return out;
}

function userContent(content: unknown, messageId: string): ContentBlock[] {
  if (typeof content === "string") return content === "" ? [] : [textBlock(content)];
  const parsed = z.array(ContentPart).safeParse(content);
  if (!parsed.success)
    throw new AguiInputError(`user message "${messageId}": content must be a string or content parts`);
  const blocks: ContentBlock[] = [];
  for (const part of parsed.data) {
    if (part.type === "text") {
      blocks.push(textBlock(part.text));
      continue;
    }
    const source = part.source;
    if (source.type === "file") {
      throw new AguiInputError(
        `user message "${messageId}": file sources are not supported; send data or a URL`,
      );
    }
    blocks.push({
      type: "data",
      id: `${messageId}-${blocks.length}`,
      source:
        source.type === "data"
          ? { type: "base64", mediaType: source.mimeType, data: source.value }
          : { type: "url", url: source.value, ...(source.mimeType ? { mediaType: source.mimeType } : {}) },
    });
  }
  return blocks;
}

/** One answer of a resume: the input event for session `sessionId` (the thread, or a spawned sub-agent's). */
export interface ResumeAnswer {
  sessionId: string;
  input: InputEvent;
}

/**
 * Turns AG-UI resume entries into the input events that answer the thread's open asks (`asks`: its
 * reply's own, its nested sub-runs', its spawned sub-agent sessions'), one per session and reply
 * asked from, in the asks' order. Every open ask must be answered (AG-UI: no partial resumes).
 * Confirmations: `approved`, optional `editedArgs` (full replacement; the agent decides the edited
 * call again before it runs), `rules` to remember (only rules the ask offered), `reason` for a
 * refusal; a cancelled one is a refusal. External runs: `{ output, isError? }`. When every entry is
 * cancelled each reply asked from ends (USER_INTERRUPT).
 */
export function resumeInputs(
  threadId: string,
  asks: readonly OpenAsk[],
  resume: ResumeEntry[],
): ResumeAnswer[] {
  if (asks.length === 0)
    throw new AguiInputError("nothing is waiting in this thread; send messages without resume");
  const byId = new Map(resume.map((entry) => [entry.interruptId, entry]));
  if (byId.size !== resume.length) throw new AguiInputError("resume answers one interrupt twice");
  const idOf = (ask: OpenAsk) =>
    interruptId(ask.kind, ask.call.id, ask.sessionId === threadId ? undefined : ask.sessionId);
  const expected = asks.map(idOf);
  const unknown = [...byId.keys()].filter((id) => !expected.includes(id));
  if (unknown.length > 0) {
    throw new AguiInputError(
      `resume names unknown interrupt(s) ${unknown.join(", ")}; open: ${expected.join(", ")}`,
    );
  }
  const missing = expected.filter((id) => !byId.has(id));
  if (missing.length > 0)
    throw new AguiInputError(`resume must answer every open interrupt; missing: ${missing.join(", ")}`);

  const groups = new Map<string, OpenAsk[]>();
  for (const ask of asks) {
    const key = JSON.stringify([ask.sessionId, ask.replyId]);
    groups.set(key, [...(groups.get(key) ?? []), ask]);
  }
  const cancelled = resume.every((entry) => entry.status === "cancelled");
  return [...groups.values()].map((group) => {
    const { sessionId, replyId } = group[0]!;
    if (cancelled)
      return {
        sessionId,
        input: userInterrupt({ replyId, reason: "the user cancelled the pending tool calls" }),
      };
    const entry = (ask: OpenAsk) => byId.get(idOf(ask))!;
    if (group.every((ask) => ask.kind === "confirm")) {
      const confirmResults = group.map((ask) => confirmAnswer(ask.call, entry(ask)));
      return { sessionId, input: userConfirmResult({ replyId, confirmResults }) };
    }
    if (group.some((ask) => ask.kind === "confirm")) {
      throw new AguiInputError(
        "this reply waits for confirmations and external results at once; not supported",
      );
    }
    const toolResults = group.map((ask) => externalAnswer(ask.call, entry(ask)));
    return { sessionId, input: externalExecutionResult({ replyId, toolResults }) };
  });
}

/**
 * `resumeInputs` for one paused reply `replyId` whose `waiting` calls ask for a confirmation or were
 * submitted for external execution: the input event that continues it.
 */
export function resumeInput(replyId: string, waiting: ToolCallBlock[], resume: ResumeEntry[]): InputEvent {
  const asks = waiting.map(
    (call): OpenAsk => ({
      kind: call.state === "asking" ? "confirm" : "external",
      sessionId: "",
      replyId,
      call,
    }),
  );
  return resumeInputs("", asks, resume)[0]!.input;
}

function confirmAnswer(call: ToolCallBlock, entry: ResumeEntry): ConfirmResult {
  const toolCall = { id: call.id, name: call.name, input: call.input };
  if (entry.status === "cancelled") return { confirmed: false, toolCall, reason: "cancelled" };
  const parsed = ConfirmPayload.safeParse(entry.payload);
  if (!parsed.success) {
    throw new AguiInputError(
      `resume ${entry.interruptId}: payload must be { approved: boolean, editedArgs?, rules?, reason? }`,
    );
  }
  const { approved, editedArgs, rules, reason } = parsed.data;
  if (editedArgs !== undefined) toolCall.input = JSON.stringify(editedArgs);
  return {
    confirmed: approved,
    toolCall,
    ...(approved && rules?.length ? { rules } : {}),
    ...(reason !== undefined ? { reason } : {}),
  };
}

function externalAnswer(call: ToolCallBlock, entry: ResumeEntry): ToolResultBlock {
  if (entry.status === "cancelled") {
    return {
      type: "tool_result",
      id: call.id,
      name: call.name,
      output: "cancelled by the user",
      state: "error",
    };
  }
  const parsed = ExternalPayload.safeParse(entry.payload);
  if (!parsed.success)
    throw new AguiInputError(`resume ${entry.interruptId}: payload must be { output: string, isError? }`);
  return {
    type: "tool_result",
    id: call.id,
    name: call.name,
    output: parsed.data.output,
    state: parsed.data.isError ? "error" : "success",
  };
}
