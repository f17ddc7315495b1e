import { votesFor } from "../../../agent/approver-screen.js";
import { type DecisionRecord, decisionsOf, type UserConfirmResultEvent } from "../../../event/index.js";
import type { ToolCallBlock } from "../../../message/index.js";
import {
  type ApproverOptions,
  type ApproverPolicy,
  notAnApprover,
  policyFor,
} from "../../../permission/index.js";
import type { ApprovalRequest } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import { sessionNotFound } from "../request-error.js";

/**
 * Whether `policies` could let `user` (with `roles`) answer anything: a policy that names them by
 * user or role. A policy that names nobody ("whoever reaches the session") never reaches a
 * non-owner. Cheap: no state is read.
 */
export function namesApprover(
  approvers: ApproverOptions | undefined,
  user: string,
  roles: readonly string[],
): boolean {
  return (approvers?.policies ?? []).some(
    (policy) =>
      (policy.users !== undefined || policy.roles !== undefined) &&
      notAnApprover(policy, user, roles) === undefined,
  );
}

/** An asking call of the paused reply, the policy naming users or roles that governs it, and the reply's records. */
interface NamedAsk {
  replyId: string;
  call: ToolCallBlock;
  policy: ApproverPolicy;
  records: DecisionRecord[];
  expiresAt?: string;
}

/**
 * The paused reply's own asking calls whose governing policy (the first that covers the tool or the
 * rule that asked, as the agent judges it: `policyFor`) names users or roles. Asks of nested runs
 * and of spawned sessions are not among them (their agents' policies govern them).
 */
function namedAsks(approvers: ApproverOptions | undefined, state: AgentState): NamedAsk[] {
  const reply = state.replyContext;
  if (!approvers || reply?.waitingFor !== "user_confirm") return [];
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  if (!msg) return [];
  const records = decisionsOf([msg]);
  const asks: NamedAsk[] = [];
  for (const call of msg.content) {
    if (call.type !== "tool_call" || call.state !== "asking") continue;
    const ask = records.findLast((r) => r.toolCallId === call.id && r.outcome === "ask");
    const policy = policyFor(approvers.policies, call.name, ask?.rule);
    if (!policy || (policy.users === undefined && policy.roles === undefined)) continue;
    asks.push({
      replyId: reply.replyId,
      call,
      policy,
      records,
      ...(ask?.expiresAt ? { expiresAt: ask.expiresAt } : {}),
    });
  }
  return asks;
}

/** Whether the paused reply in `state` asks anything a policy naming users or roles governs (what the approvals index holds). */
export function asksNamedApprovers(approvers: ApproverOptions | undefined, state: AgentState): boolean {
  return namedAsks(approvers, state).length > 0;
}

/** The asks of the paused reply in `state` that `user` (with `roles`) may answer as a named approver. */
export function approverAsks(
  approvers: ApproverOptions | undefined,
  user: string,
  roles: readonly string[],
  state: AgentState,
): ApprovalRequest[] {
  return namedAsks(approvers, state)
    .filter(({ policy }) => notAnApprover(policy, user, roles) === undefined)
    .map(({ replyId, call, policy, records, expiresAt }) => {
      const votes = votesFor(records, call.id, call.input, policy.name);
      return {
        sessionId: state.sessionId,
        replyId,
        toolCallId: call.id,
        toolName: call.name,
        input: call.input,
        policy: policy.name,
        votes: votes.length,
        needed: policy.quorum ?? 1,
        approvedByYou: votes.includes(user),
        ...(expiresAt ? { expiresAt } : {}),
      };
    });
}

/**
 * Refuses, as "not found" (what a stranger gets), a named approver's answer in a session they do
 * not own unless it answers only asks they may answer (`approverAsks`), each approved or refused as
 * asked: no edited input, no rules to remember (those change the owner's session beyond this call).
 * The agent's gate then judges it as any answer (votes, quorum, refusal naming the policy).
 */
export function checkApproverAnswer(
  sessionId: string,
  asks: readonly ApprovalRequest[],
  answer: UserConfirmResultEvent,
): void {
  const byId = new Map(asks.map((ask) => [ask.toolCallId, ask]));
  const ids = answer.confirmResults.map((result) => result.toolCall.id);
  const refused =
    ids.length === 0 ||
    new Set(ids).size !== ids.length ||
    answer.replyId !== asks[0]?.replyId ||
    answer.confirmResults.some((result) => {
      const ask = byId.get(result.toolCall.id);
      return (
        ask === undefined ||
        result.toolCall.name !== ask.toolName ||
        result.toolCall.input !== ask.input ||
        (result.rules?.length ?? 0) > 0
      );
    });
  if (refused) throw sessionNotFound(sessionId);
}
