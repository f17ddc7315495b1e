import type { ConfirmResult, DecisionRecord, UserConfirmResultEvent } from "../event/index.js";
import { decisionsOf } from "../event/index.js";
import { notAnApprover, policyFor } from "../permission/index.js";
import { CALLER, type Governed, type HeldAnswer } from "./decision-records.js";
import { type DueCall, dueCalls, fromDeadline } from "./pause-deadlines.js";
import type { ReplyRun } from "./reply-run.js";

/**
 * Sorts a confirmation's answers by the agent's approver policies (`approvers`): those taken, those
 * held (a refusal naming the policy, or a vote toward a quorum), and for the taken ones the policy
 * that governed them. The policy of a call is the first that covers its tool or the rule that
 * asked (the call's latest `ask` record says which). Without policies every answer is taken.
 */
export async function screenAnswers(
  run: ReplyRun,
  input: UserConfirmResultEvent,
): Promise<{ taken: ConfirmResult[]; held: HeldAnswer[]; governed: Governed }> {
  const approvers = run.config.approvers;
  const governed: Governed = new Map();
  if (!approvers || approvers.policies.length === 0)
    return { taken: input.confirmResults, held: [], governed };
  const by = input.answeredBy ?? CALLER;
  let roles: readonly string[] | undefined = by.roles;
  const records = decisionsOf([run.msg]);
  const taken: ConfirmResult[] = [];
  const held: HeldAnswer[] = [];
  for (const answer of input.confirmResults) {
    const call = run.findCall(answer.toolCall.id)!;
    const ask = records.findLast((r) => r.toolCallId === call.id && r.outcome === "ask");
    const policy = policyFor(approvers.policies, call.name, ask?.rule);
    if (!policy) {
      taken.push(answer);
      continue;
    }
    roles ??= [...((await approvers.rolesOf?.(by.name)) ?? [])];
    const hold = (outcome: HeldAnswer["outcome"], reason: string) =>
      held.push({ answer, outcome, reason, policy: policy.name });
    const refusal = notAnApprover(policy, by.name, roles);
    if (refusal !== undefined) {
      hold("policy_refusal", refusal);
      continue;
    }
    const quorum = policy.quorum ?? 1;
    if (!answer.confirmed || quorum === 1) {
      taken.push(answer);
      governed.set(call.id, { policy: policy.name });
      continue;
    }
    if (answer.toolCall.input !== call.input || (answer.rules?.length ?? 0) > 0) {
      hold(
        "policy_refusal",
        `the approver policy "${policy.name}" needs ${quorum} approvals of the call as asked: an approval under it cannot edit the call or remember rules`,
      );
      continue;
    }
    const votes = votesFor(records, call.id, call.input, policy.name);
    if (votes.includes(by.name)) {
      hold(
        "policy_refusal",
        `${by.name} has already approved this call; the approver policy "${policy.name}" needs ${quorum} different approvers (${votes.length} so far)`,
      );
      continue;
    }
    if (votes.length + 1 < quorum) {
      hold("vote", `approval ${votes.length + 1} of ${quorum} under the approver policy "${policy.name}"`);
      continue;
    }
    taken.push(answer);
    governed.set(call.id, { policy: policy.name, approvers: [...votes, by.name] });
  }
  return { taken, held, governed };
}

/** Who has voted for the call with this input under this policy, in order, each once. */
export function votesFor(records: DecisionRecord[], callId: string, input: string, policy: string): string[] {
  const voters: string[] = [];
  for (const r of records) {
    if (r.toolCallId !== callId || r.outcome !== "vote" || r.input !== input || r.policy !== policy) continue;
    if (!voters.includes(r.actor)) voters.push(r.actor);
  }
  return voters;
}

/** A confirmation sorted before anything changes: what is taken, what expired, what is held. */
export interface SortedAnswers {
  /** The confirmation with only the answers taken. */
  input: UserConfirmResultEvent;
  /** Asking calls whose deadline passed (answered or not): they expire first. */
  due: DueCall[];
  /** The due calls this confirmation answered too late. */
  late: Set<string>;
  held: HeldAnswer[];
  governed: Governed;
}

/**
 * Sorts a confirmation: calls whose deadline passed expire (their answers come too late), then the
 * approver policies screen the rest (`screenAnswers`). Changes nothing.
 */
export async function sortAnswers(run: ReplyRun, input: UserConfirmResultEvent): Promise<SortedAnswers> {
  const answered = input.confirmResults.map((a) => a.toolCall.id);
  const byDeadline = fromDeadline(input.answeredBy);
  const due = dueCalls(run, byDeadline ? new Set(answered) : undefined);
  const dueIds = new Set(due.map((d) => d.call.id));
  const late = new Set(byDeadline ? [] : answered.filter((id) => dueIds.has(id)));
  const timely = { ...input, confirmResults: input.confirmResults.filter((a) => !dueIds.has(a.toolCall.id)) };
  if (timely.confirmResults.length === 0) return { input: timely, due, late, held: [], governed: new Map() };
  const { taken, held, governed } = await screenAnswers(run, timely);
  return { input: { ...timely, confirmResults: taken }, due, late, held, governed };
}
