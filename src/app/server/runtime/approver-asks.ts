import { votesFor } from "../../../agent/approver-screen.js";
import { decisionsOf, type UserConfirmResultEvent } from "../../../event/index.js";
import { type ApproverOptions, notAnApprover, policyFor } from "../../../permission/index.js";
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

/**
 * The asks of the paused reply in `state` that `user` may answer as a named approver: the reply's
 * own asking calls whose governing policy (the first that covers the tool or the rule that asked,
 * as the agent judges it: `policyFor`) names the user or one of their roles. Asks of nested runs
 * and of spawned sessions are not offered (their agents' policies govern them).
 */
export function approverAsks(
  approvers: ApproverOptions | undefined,
  user: string,
  roles: readonly string[],
  state: AgentState,
): ApprovalRequest[] {
  const reply = state.replyContext;
  if (!approvers || reply?.waitingFor !== "user_confirm") return [];
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  if (!msg) return [];
  const records = decisionsOf([msg]);
  const asks: ApprovalRequest[] = [];
  for (const block of msg.content) {
    if (block.type !== "tool_call" || block.state !== "asking") continue;
    const ask = records.findLast((r) => r.toolCallId === block.id && r.outcome === "ask");
    const policy = policyFor(approvers.policies, block.name, ask?.rule);
    if (!policy || (policy.users === undefined && policy.roles === undefined)) continue;
    if (notAnApprover(policy, user, roles) !== undefined) continue;
    const votes = votesFor(records, block.id, block.input, policy.name);
    asks.push({
      sessionId: state.sessionId,
      replyId: reply.replyId,
      toolCallId: block.id,
      toolName: block.name,
      input: block.input,
      policy: policy.name,
      votes: votes.length,
      needed: policy.quorum ?? 1,
      approvedByYou: votes.includes(user),
      ...(ask?.expiresAt ? { expiresAt: ask.expiresAt } : {}),
    });
  }
  return asks;
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
