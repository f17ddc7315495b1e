import { type Answerer, decisionsOf } from "../event/index.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import { type ApproverPolicy, policyFor } from "../permission/index.js";
import { recordVerdict } from "./decision-records.js";
import { openCalls } from "./open-calls.js";
import type { ReplyRun } from "./reply-run.js";
import { writeResult } from "./result-events.js";

/** An asking call whose deadline has passed, with what it becomes. */
export interface DueCall {
  call: ToolCallBlock;
  expiresAt: string;
  policy: string;
  onExpiry: "deny" | "approve";
}

/** The approver clock: the policies' `now`, else the process's. */
function now(run: ReplyRun): number {
  return run.config.approvers?.now?.() ?? Date.now();
}

/**
 * The deadline of an ask for `call` that `rule` made: the first deadline this call's asks already
 * had for the same arguments (re-asking never extends it), else now plus the governing policy's
 * `expiresAfterMs`; undefined when no policy sets one.
 */
export function deadlineOf(
  run: ReplyRun,
  call: ToolCallBlock,
  rule: string | undefined,
): { expiresAt: string; policy: string } | undefined {
  const policies = run.config.approvers?.policies ?? [];
  const policy = policyFor(policies, call.name, rule);
  if (policy?.expiresAfterMs === undefined) return undefined;
  const earlier = decisionsOf([run.msg]).find(
    (r) => r.toolCallId === call.id && r.outcome === "ask" && r.input === call.input && r.expiresAt,
  );
  const expiresAt = earlier?.expiresAt ?? new Date(now(run) + policy.expiresAfterMs).toISOString();
  return { expiresAt, policy: policy.name };
}

/** Who answers for a deadline: the service's deadline sweeper, judging by the store's clock. */
export const DEADLINE: Answerer = { name: "deadline", channel: "engine" };

/** Whether an answer comes from the deadline itself (a sweeper), not from a person. */
export function fromDeadline(by: Answerer | undefined): boolean {
  return by?.channel === DEADLINE.channel && by.name === DEADLINE.name;
}

/**
 * The asking calls whose latest ask has a deadline that has passed, by the approver clock. `judged`:
 * calls a deadline sweeper has already found expired by its own clock (the store's): due whenever
 * their ask has a deadline, so a replica whose clock lags the store's does not take its answer as a
 * person's.
 */
export function dueCalls(run: ReplyRun, judged: ReadonlySet<string> = new Set()): DueCall[] {
  const records = decisionsOf([run.msg]);
  const at = now(run);
  const due: DueCall[] = [];
  for (const call of openCalls(run.msg)) {
    if (call.state !== "asking") continue;
    const ask = records.findLast((r) => r.toolCallId === call.id && r.outcome === "ask");
    if (!ask?.expiresAt || (!judged.has(call.id) && Date.parse(ask.expiresAt) > at)) continue;
    const policy: ApproverPolicy | undefined = run.config.approvers?.policies.find(
      (p) => p.name === ask.policy,
    );
    due.push({
      call,
      expiresAt: ask.expiresAt,
      policy: ask.policy ?? "",
      onExpiry: policy?.onExpiry ?? "deny",
    });
  }
  return due;
}

/**
 * Expires the due calls: an `expire` record each, then a denied result the model reads, or, for
 * `onExpiry: "approve"`, the deadline's own approval (USER_CONFIRM_RESULT answered by `deadline`
 * through `engine`) so the call runs as asked. `late`: calls an answer came for after the deadline.
 */
export function expire(run: ReplyRun, due: readonly DueCall[], late: ReadonlySet<string>): void {
  for (const { call, expiresAt, policy, onExpiry } of due) {
    const lateNote = late.has(call.id) ? "; the answer that came after it was not taken" : "";
    recordVerdict(
      run,
      call,
      "expire",
      { behavior: "deny", reason: `nobody answered before the deadline ${expiresAt}${lateNote}` },
      { policy, expiresAt },
    );
    if (onExpiry === "approve") {
      run.emit("USER_CONFIRM_RESULT", {
        confirmResults: [{ confirmed: true, toolCall: { id: call.id, name: call.name, input: call.input } }],
        answeredBy: { name: "deadline", channel: "engine" },
      });
      run.approvals.set(call.id, { edited: false });
      continue;
    }
    writeResult(
      run,
      call,
      "denied",
      `Permission denied: nobody answered the confirmation before it expired at ${expiresAt}; the call was not run.`,
    );
  }
}

/**
 * The calls of a paused reply `msg` still asking whose latest ask's deadline is at or before `at`
 * (ms since the epoch, by whichever clock judges: the service's sweeper passes the store's).
 */
export function expiredAsks(msg: Msg, at: number): ToolCallBlock[] {
  const records = decisionsOf([msg]);
  return openCalls(msg).filter((call) => {
    if (call.state !== "asking") return false;
    const ask = records.findLast((r) => r.toolCallId === call.id && r.outcome === "ask");
    return ask?.expiresAt !== undefined && Date.parse(ask.expiresAt) <= at;
  });
}
