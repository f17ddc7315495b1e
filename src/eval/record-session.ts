import type { AgentEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import type { EvalCase } from "./case.js";
import { EvalCaseError } from "./eval-error.js";
import { caseFromState } from "./record-state.js";
import { caseFromEvents } from "./record-trace.js";

export interface CaseFromSessionOptions {
  id: string;
  description?: string;
  /** Record only this reply (the messages before its input become the case's starting state). */
  replyId?: string;
}

interface ReplyOfContext {
  replyId: string;
  /** Where the reply's user input starts in the context. */
  inputAt: number;
  input: Msg[];
}

/** The top-level replies of a context, each with the user messages sent right before it. */
function repliesOf(context: Msg[]): ReplyOfContext[] {
  const replies: ReplyOfContext[] = [];
  let inputAt = 0;
  context.forEach((msg, index) => {
    if (msg.role !== "assistant") return;
    const input = context.slice(inputAt, index).filter((m) => m.role === "user");
    if (input.length > 0) replies.push({ replyId: msg.id, inputAt, input });
    inputAt = index + 1;
  });
  return replies;
}

/**
 * A case from a served session: its stored state and its event log. With the log complete for the
 * replies recorded, the case comes from the events (`caseFromEvents`: tool calls, permission
 * decisions, the answers a person gave, the requests `evalRecorder()` wrote), each reply's input
 * taken from the state; when the log no longer holds them (trimmed), from the state alone
 * (`caseFromState`). `replyId` records one reply, starting from the session as it stood before it.
 */
export function caseFromSession(
  state: AgentState,
  events: readonly AgentEvent[],
  options: CaseFromSessionOptions,
): EvalCase {
  const open = state.replyContext;
  if (open)
    throw new EvalCaseError(
      open.waitingFor
        ? `session "${state.sessionId}" is paused (waiting for ${open.waitingFor.replace("_", " ")}); finish its reply before recording it`
        : `session "${state.sessionId}" has a reply in flight (${open.replyId}); record it once it has ended`,
    );
  const all = repliesOf(state.context);
  if (all.length === 0)
    throw new EvalCaseError(`session "${state.sessionId}" has no finished reply to user input to record`);
  const chosen = options.replyId ? all.filter((reply) => reply.replyId === options.replyId) : all;
  if (chosen.length === 0)
    throw new EvalCaseError(
      `session "${state.sessionId}" has no reply "${options.replyId}" to user input; pick one of ${all.map((r) => r.replyId).join(", ")}`,
    );
  const ids = new Set(chosen.map((reply) => reply.replyId));
  const logged = events.filter((event) => ids.has(event.replyId) && !event.source?.includes("/"));
  const started = new Set(logged.filter((e) => e.type === "REPLY_START").map((e) => e.replyId));
  const from = chosen[0]!.inputAt;
  const base = { id: options.id, ...(options.description ? { description: options.description } : {}) };
  let evalCase: EvalCase;
  if (chosen.every((reply) => started.has(reply.replyId))) {
    // Sub-agent events carry their own reply ids (and are not the agent's turns): left out.
    evalCase = caseFromEvents(logged, { ...base, inputs: chosen.map((reply) => reply.input) });
  } else {
    const end = state.context.findIndex((msg) => msg.id === chosen.at(-1)!.replyId) + 1;
    const sliced: AgentState = { ...state, context: state.context.slice(from, end) };
    evalCase = caseFromState(sliced, base);
  }
  if (from > 0) {
    const history: AgentState = structuredClone({ ...state, context: state.context.slice(0, from) });
    delete history.replyContext;
    evalCase.input.state = history;
  } else delete evalCase.input.state;
  return evalCase;
}
