import type { AgentEvent } from "../event/index.js";
import { type Msg, userMsg } from "../message/index.js";
import { readTrace } from "../trace/index.js";
import type { ConfirmAnswer, EvalCase, RecordedRequest, RecordedToolCall, RecordedTurn } from "./case.js";
import { EvalCaseError } from "./eval-error.js";
import { parseArguments } from "./normal-msg.js";
import { REQUEST_EVENT } from "./recorder-middleware.js";

/** Input of each reply: text, a Msg, or several Msgs. */
export type ReplyInputLike = string | Msg | Msg[];

export interface CaseFromTraceOptions {
  id: string;
  description?: string;
  /**
   * The user input of each reply in the trace, in order. Optional when the trace was written with
   * `evalRecorder()` (its requests hold the user messages); required otherwise.
   */
  inputs?: ReplyInputLike[];
}

const asMsgs = (input: ReplyInputLike): Msg[] =>
  typeof input === "string" ? [userMsg(input)] : Array.isArray(input) ? input : [input];

interface OpenTurn {
  turn: RecordedTurn;
  text: Map<string, string>;
  thinking: Map<string, string>;
  calls: Map<string, { name: string; input: string }>;
}

/** Folds the events of a trace into the model turns, tool call facts and answers a case needs. */
class TraceReader {
  readonly turns: RecordedTurn[] = [];
  readonly confirmations: ConfirmAnswer[] = [];
  /** The first request of each reply (user input comes from it). */
  readonly firstRequests: Array<RecordedRequest | undefined> = [];
  private open: OpenTurn | undefined;
  private readonly calls = new Map<string, RecordedToolCall>();
  private readonly asked = new Map<string, { name: string; input: string }>();
  private newReply = false;

  read(event: AgentEvent): void {
    if (event.source?.includes("/")) return;
    const open = this.open;
    switch (event.type) {
      case "REPLY_START":
        this.newReply = true;
        this.firstRequests.push(undefined);
        break;
      case "CUSTOM":
        // evalRecorder emits it inside the model call it describes (after MODEL_CALL_START).
        if (event.name !== REQUEST_EVENT) break;
        if (this.newReply) this.firstRequests[this.firstRequests.length - 1] = event.value as RecordedRequest;
        this.newReply = false;
        if (open && !open.turn.request) open.turn.request = event.value as RecordedRequest;
        break;
      case "MODEL_CALL_START":
        this.close();
        this.open = { turn: {}, text: new Map(), thinking: new Map(), calls: new Map() };
        break;
      case "TEXT_BLOCK_DELTA":
        if (open) open.text.set(event.blockId, (open.text.get(event.blockId) ?? "") + event.delta);
        break;
      case "THINKING_BLOCK_DELTA":
        if (open) open.thinking.set(event.blockId, (open.thinking.get(event.blockId) ?? "") + event.delta);
        break;
      case "TOOL_CALL_START":
        if (open && event.executedBy !== "provider")
          open.calls.set(event.toolCallId, { name: event.toolCallName, input: "" });
        break;
      case "TOOL_CALL_DELTA": {
        const call = open?.calls.get(event.toolCallId);
        if (call) call.input += event.delta;
        break;
      }
      case "MODEL_CALL_END":
        if (open) open.turn.usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
        this.close();
        break;
      case "REQUIRE_USER_CONFIRM":
        for (const call of event.toolCalls) {
          this.asked.set(call.id, { name: call.name, input: call.input });
          const recorded = this.calls.get(call.id);
          if (recorded) recorded.decision = "ask";
        }
        break;
      case "USER_CONFIRM_RESULT":
        for (const answer of event.confirmResults) this.answered(answer);
        break;
      case "TOOL_RESULT_TEXT_DELTA": {
        const call = this.calls.get(event.toolCallId);
        if (call) call.result = { state: "running", output: (call.result?.output ?? "") + event.delta };
        break;
      }
      case "TOOL_RESULT_END": {
        const call = this.calls.get(event.toolCallId);
        if (!call) break;
        call.result = { state: event.state, output: call.result?.output ?? "" };
        call.decision ??= event.state === "denied" ? "deny" : "allow";
        break;
      }
    }
  }

  private answered(answer: {
    confirmed: boolean;
    toolCall: { id: string; name: string; input: string };
    rules?: string[];
    reason?: string;
  }): void {
    const recorded = this.calls.get(answer.toolCall.id);
    if (recorded) recorded.confirmed = answer.confirmed;
    const confirm: ConfirmAnswer = {
      toolCallId: answer.toolCall.id,
      tool: answer.toolCall.name,
      confirmed: answer.confirmed,
    };
    const asked = this.asked.get(answer.toolCall.id);
    if (asked && answer.toolCall.input !== asked.input) confirm.input = parseArguments(answer.toolCall.input);
    if (answer.rules?.length) confirm.rules = answer.rules;
    if (answer.reason) confirm.reason = answer.reason;
    this.confirmations.push(confirm);
  }

  /** Ends the open turn: its blocks become the turn's thinking, text and tool calls. */
  close(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const { turn } = open;
    if (open.thinking.size) turn.thinking = [...open.thinking.values()].join("\n");
    if (open.text.size) turn.text = [...open.text.values()].join("\n");
    for (const [id, call] of open.calls) {
      const recorded: RecordedToolCall = { id, name: call.name, input: parseArguments(call.input) };
      this.calls.set(id, recorded);
      if (turn.toolCalls) turn.toolCalls.push(recorded);
      else turn.toolCalls = [recorded];
    }
    this.turns.push(turn);
  }
}

/** The user messages a request ends with: what the user sent for that reply. */
function userInputOf(request: RecordedRequest | undefined): Msg[] | undefined {
  const messages = request?.messages ?? [];
  const start = messages.findLastIndex((msg) => msg.role !== "user") + 1;
  const users = messages.slice(start);
  return users.length > 0 ? users.map((msg) => userMsg(msg.text ?? "")) : undefined;
}

/**
 * A case from the events of a recorded session (a JSONL trace or a service's event log): one turn
 * per model call with its tool calls, their permission decisions, the answers given and the
 * results; the answers become the case's confirmations. Each reply's user input comes from
 * `options.inputs`, or from the requests `evalRecorder()` wrote.
 */
export function caseFromEvents(events: Iterable<AgentEvent>, options: CaseFromTraceOptions): EvalCase {
  const reader = new TraceReader();
  for (const event of events) reader.read(event);
  reader.close();
  const replies = reader.firstRequests.length;
  if (replies === 0)
    throw new EvalCaseError(`case "${options.id}": the trace has no REPLY_START, so no reply to record`);
  const inputs = options.inputs?.map(asMsgs) ?? reader.firstRequests.map(userInputOf);
  if (inputs.length !== replies) {
    throw new EvalCaseError(
      `case "${options.id}": the trace has ${replies} replies but ${inputs.length} inputs were given; give one per reply`,
    );
  }
  const missing = inputs.indexOf(undefined);
  if (missing >= 0) {
    throw new EvalCaseError(
      `case "${options.id}": the user input of reply ${missing + 1} is not in the trace (record with evalRecorder(), or pass options.inputs)`,
    );
  }
  const [first, ...rest] = inputs as Msg[][];
  const evalCase: EvalCase = {
    id: options.id,
    input: { messages: first!, ...(rest.length ? { followUps: rest } : {}) },
    recording: { turns: reader.turns },
  };
  if (options.description) evalCase.description = options.description;
  if (reader.confirmations.length) evalCase.confirmations = reader.confirmations;
  return evalCase;
}

/** A case from a JSONL trace file (see caseFromEvents); a bad line is a TraceFileError naming it. */
export async function caseFromTrace(file: string, options: CaseFromTraceOptions): Promise<EvalCase> {
  return caseFromEvents(await readTrace(file), options);
}
