import type { Msg } from "../message/index.js";
import type { AgentState, AgentStateStore } from "../state/index.js";
import type { ConfirmAnswer, EvalCase, NormalMsg, RecordedToolCall, RecordedTurn } from "./case.js";
import { EvalCaseError } from "./eval-error.js";
import { normalizeMsg, outputText, parseArguments } from "./normal-msg.js";

export interface CaseFromStateOptions {
  id: string;
  description?: string;
}

/** The text the agent writes into the result of a call the user refused. */
const REFUSED = "The user refused this call";

/**
 * Splits one reply Msg into its model turns: a turn is the thinking, text and tool calls before the
 * results of those calls. Each turn's request is the history plus the reply as it stood then.
 */
function turnsOfReply(reply: Msg, history: NormalMsg[], confirmations: ConfirmAnswer[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  const calls = new Map<string, RecordedToolCall>();
  let turn: RecordedTurn | undefined;
  let sawResult = false;
  reply.content.forEach((block, index) => {
    if (block.type === "tool_result") {
      sawResult = true;
      const call = calls.get(block.id);
      if (!call) return;
      const output = outputText(block.output);
      call.result = { state: block.state, output };
      if (block.state === "denied" && output.startsWith(REFUSED)) {
        call.decision = "ask";
        call.confirmed = false;
        confirmations.push({ toolCallId: call.id, tool: call.name, confirmed: false });
      } else if (block.state === "denied") call.decision = "deny";
      return;
    }
    if (block.type !== "thinking" && block.type !== "text" && block.type !== "tool_call") return;
    if (block.type === "tool_call" && block.executedBy === "provider") return;
    if (!turn || sawResult) {
      const sofar = { ...reply, content: reply.content.slice(0, index) };
      turn = {
        request: { messages: sofar.content.length ? [...history, normalizeMsg(sofar)] : [...history] },
      };
      turns.push(turn);
      sawResult = false;
    }
    if (block.type === "thinking")
      turn.thinking = turn.thinking === undefined ? block.thinking : `${turn.thinking}\n${block.thinking}`;
    else if (block.type === "text")
      turn.text = turn.text === undefined ? block.text : `${turn.text}\n${block.text}`;
    else {
      const call: RecordedToolCall = { id: block.id, name: block.name, input: parseArguments(block.input) };
      calls.set(block.id, call);
      if (turn.toolCalls) turn.toolCalls.push(call);
      else turn.toolCalls = [call];
    }
  });
  return turns;
}

/**
 * A case from a stored session's state: each user input and the reply after it, the reply split
 * into model turns with the messages each call saw. A state records no system prompt, tools offered
 * or approvals, so those are not compared on replay; a refused call becomes a "deny" answer, and an
 * asking call that ran is approved. Messages before the first user message are the starting state.
 */
export function caseFromState(state: AgentState, options: CaseFromStateOptions): EvalCase {
  if (state.replyContext?.waitingFor) {
    throw new EvalCaseError(
      `session "${state.sessionId}" is paused (waiting for ${state.replyContext.waitingFor.replace("_", " ")}); finish its reply before recording it`,
    );
  }
  const context = state.context;
  const firstUser = context.findIndex((msg) => msg.role === "user");
  if (firstUser < 0) throw new EvalCaseError(`session "${state.sessionId}" has no user message to record`);
  const history: NormalMsg[] = context
    .slice(0, firstUser)
    .filter((m) => m.content.length > 0)
    .map(normalizeMsg);
  const inputs: Msg[][] = [];
  const turns: RecordedTurn[] = [];
  const confirmations: ConfirmAnswer[] = [];
  let pending: Msg[] = [];
  for (const msg of context.slice(firstUser)) {
    if (msg.role !== "assistant") {
      pending.push(msg);
      history.push(normalizeMsg(msg));
      continue;
    }
    if (pending.length === 0) {
      throw new EvalCaseError(
        `session "${state.sessionId}": message ${msg.id} is an assistant message with no user input before it; a case replays replies to user input`,
      );
    }
    inputs.push(pending);
    pending = [];
    turns.push(...turnsOfReply(msg, [...history], confirmations));
    history.push(normalizeMsg(msg));
  }
  if (pending.length > 0) inputs.push(pending);
  const [first, ...rest] = inputs;
  const evalCase: EvalCase = {
    id: options.id,
    input: { messages: first!, ...(rest.length ? { followUps: rest } : {}) },
    recording: { turns },
  };
  if (firstUser > 0) {
    evalCase.input.state = {
      ...structuredClone(state),
      context: structuredClone(context.slice(0, firstUser)),
    };
    delete evalCase.input.state.replyContext;
  }
  if (options.description) evalCase.description = options.description;
  if (confirmations.length) evalCase.confirmations = confirmations;
  return evalCase;
}

/** A case from a session in any AgentStateStore (see caseFromState). */
export async function caseFromStore(
  store: AgentStateStore,
  sessionId: string,
  options: CaseFromStateOptions,
): Promise<EvalCase> {
  const stored = await store.load(sessionId);
  if (!stored)
    throw new EvalCaseError(`no session "${sessionId}" in the store; list the store's sessions to find it`);
  return caseFromState(stored.state, options);
}
