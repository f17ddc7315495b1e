import type { Msg } from "../message/index.js";
import type { AgentState, ReplyContext, TaintMark } from "../state/index.js";

/**
 * Marks the running reply of `state` as holding untrusted content (`reason`: what it read). The mark
 * lasts the reply; with taint scope "memory" it is also kept in the state, on the reply's Msg (which
 * holds the tool results), so later replies start marked while that Msg is in memory.
 */
export function taintReply(state: AgentState, reason: string): void {
  const reply = state.replyContext;
  if (!reply) return;
  markReply(reply, reason);
  if (reply.keepsTaint) addMark(state, reason, reply.replyId);
}

/** What tainted the running reply of `state`, or undefined when nothing did. */
export function replyTaint(state: AgentState): readonly string[] | undefined {
  return state.replyContext?.taint;
}

/** Adds `reason` to the reply's marks (once). */
export function markReply(reply: ReplyContext, reason: string): void {
  const taint = reply.taint ?? [];
  if (!taint.includes(reason)) taint.push(reason);
  reply.taint = taint;
}

/** Records in `state.taint` that the message `messageId` holds what `reason` says. */
export function addMark(state: AgentState, reason: string, messageId: string): void {
  const marks = state.taint ?? [];
  state.taint = marks;
  const mark = marks.find((m) => m.reason === reason);
  if (!mark) marks.push({ reason, messages: [messageId] });
  else if (!mark.messages.includes(messageId)) mark.messages.push(messageId);
}

/**
 * The marks still in memory, kept in `state.taint` (pruned): a mark keeps the ids of its messages
 * still in `context`, and lasts while one is left, or while the summary that replaced some does.
 */
function liveMarks(state: AgentState): TaintMark[] {
  const marks = state.taint;
  if (!marks) return [];
  const ids = new Set(state.context.map((msg) => msg.id));
  const live: TaintMark[] = [];
  for (const mark of marks) {
    const messages = mark.messages.filter((id) => ids.has(id));
    const inSummary = mark.summary === true && Boolean(state.summary);
    if (messages.length === 0 && !inSummary) continue;
    live.push(
      inSummary ? { reason: mark.reason, messages, summary: true } : { reason: mark.reason, messages },
    );
  }
  if (live.length > 0) state.taint = live;
  else delete state.taint;
  return live;
}

/**
 * A new reply starts marked with the marks still in memory (its reply context is set), and with
 * `keep` (scope "memory") its own marks will be kept too (`keepsTaint`, stored with the reply, so a
 * resumed reply keeps them as well). With `keep` false (scope "reply") the marks are used up: only
 * what was observed since the last reply is left to carry, and it marks this reply alone.
 */
export function carryMarks(state: AgentState, keep: boolean): void {
  const reply = state.replyContext;
  if (!reply) return;
  if (keep) reply.keepsTaint = true;
  if (!state.taint) return;
  for (const mark of liveMarks(state)) markReply(reply, mark.reason);
  if (!keep) delete state.taint;
}

/** A compression summary replaced `removed`: the marks of those messages pass to the summary (conservative). */
export function inheritMarks(state: AgentState, removed: readonly Msg[]): void {
  const marks = state.taint;
  if (!marks) return;
  const gone = new Set(removed.map((msg) => msg.id));
  for (const mark of marks) {
    if (!mark.messages.some((id) => gone.has(id))) continue;
    mark.messages = mark.messages.filter((id) => !gone.has(id));
    mark.summary = true;
  }
}
