import type {
  Answerer,
  ConfirmResult,
  DecisionOutcome,
  EventInit,
  ExternalExecutionResultEvent,
  UserConfirmResultEvent,
} from "../event/index.js";
import type { ToolCallBlock } from "../message/index.js";
import { formatRule, inputChanges, type PermissionDecision } from "../permission/index.js";
import type { ReplyRun } from "./reply-run.js";
import { replyTaint } from "./taint-marks.js";

/** An answer the approver policy does not take (yet): recorded, and its call keeps waiting. */
export interface HeldAnswer {
  answer: ConfirmResult;
  outcome: "vote" | "policy_refusal";
  reason: string;
  policy: string;
}

/** What the policy said about the answers it takes: by call id, its name, and a quorum's approvers. */
export type Governed = Map<string, { policy: string; approvers?: string[] }>;

/** Who answers when an answer does not say: a program calling the agent. */
export const CALLER: Answerer = { name: "user", channel: "code" };

type RecordFields = Omit<EventInit<"DECISION">, "replyId">;

/**
 * The DECISION event of the engine's own verdict for `call` (an ask, a refusal, a rule's allow, an
 * expiry), with what had tainted the reply when it was made.
 */
export function recordVerdict(
  run: ReplyRun,
  call: Pick<ToolCallBlock, "id" | "name" | "input">,
  outcome: Extract<DecisionOutcome, "ask" | "deny" | "allow" | "expire">,
  decision: PermissionDecision,
  extra?: Pick<RecordFields, "policy" | "expiresAt">,
): void {
  const fields = base(run, call, outcome, { name: "engine", channel: "engine" });
  if (decision.rule) fields.rule = formatRule(decision.rule);
  if (decision.reason) fields.reason = decision.reason;
  if (extra?.policy) fields.policy = extra.policy;
  if (extra?.expiresAt) fields.expiresAt = extra.expiresAt;
  const taint = replyTaint(run.state);
  if (taint?.length) fields.taint = [...taint];
  run.emit("DECISION", fields);
}

/**
 * The DECISION events of a confirmation's answers, one per answer: `deny` (refused), `edit` (other
 * arguments than `asked` holds for the call), `always_allow` (rules remembered) or `approve`.
 * `asked`: each call's arguments as they were asked about, before the answer's edits folded in.
 */
export function recordAnswers(
  run: ReplyRun,
  input: UserConfirmResultEvent,
  asked: ReadonlyMap<string, string>,
  governed?: Governed,
): void {
  const by = input.answeredBy ?? CALLER;
  for (const answer of input.confirmResults) {
    const call = run.findCall(answer.toolCall.id)!;
    const before = asked.get(call.id) ?? call.input;
    const fields = base(run, { id: call.id, name: call.name, input: before }, outcomeOf(answer, before), by);
    if (answer.confirmed && answer.toolCall.input !== before) {
      fields.approvedInput = answer.toolCall.input;
      fields.diff = inputChanges(before, answer.toolCall.input);
    }
    if (answer.confirmed && answer.rules?.length) fields.rules = [...answer.rules];
    if (answer.reason) fields.reason = answer.reason;
    const policy = governed?.get(call.id);
    if (policy) fields.policy = policy.policy;
    if (policy?.approvers) fields.approvers = policy.approvers;
    run.emit("DECISION", fields);
  }
}

/** The DECISION events of answers an approver policy held: a refusal naming it, or a vote toward its quorum. */
export function recordHeld(run: ReplyRun, input: UserConfirmResultEvent, held: readonly HeldAnswer[]): void {
  const by = input.answeredBy ?? CALLER;
  for (const { answer, outcome, reason, policy } of held) {
    const call = run.findCall(answer.toolCall.id)!;
    const fields = base(run, call, outcome, by);
    if (answer.toolCall.input !== call.input) fields.approvedInput = answer.toolCall.input;
    fields.reason = reason;
    fields.policy = policy;
    run.emit("DECISION", fields);
  }
}

/**
 * The DECISION event of one external result: `external_result` by whoever sent it, or, when the
 * engine refused to take it (`refusal`), the engine's `deny` with the reason.
 */
export function recordExternal(
  run: ReplyRun,
  input: ExternalExecutionResultEvent,
  result: { id: string; name: string },
  refusal: string | undefined,
): void {
  const call = run.findCall(result.id);
  const subject = { id: result.id, name: result.name, input: call?.input ?? "" };
  if (refusal !== undefined) {
    const fields = base(run, subject, "deny", { name: "engine", channel: "engine" });
    fields.reason = refusal;
    run.emit("DECISION", fields);
    return;
  }
  run.emit("DECISION", base(run, subject, "external_result", input.answeredBy ?? CALLER));
}

function outcomeOf(answer: ConfirmResult, asked: string): DecisionOutcome {
  if (!answer.confirmed) return "deny";
  if (answer.toolCall.input !== asked) return "edit";
  return answer.rules?.length ? "always_allow" : "approve";
}

function base(
  run: ReplyRun,
  call: Pick<ToolCallBlock, "id" | "name" | "input">,
  outcome: DecisionOutcome,
  by: Answerer,
): RecordFields {
  return {
    toolCallId: call.id,
    toolName: call.name,
    outcome,
    input: call.input,
    mode: run.state.permission.mode,
    actor: by.name,
    channel: by.channel,
  };
}
