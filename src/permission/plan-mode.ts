import type { PermissionDecision, PermissionSubject } from "./types.js";

/**
 * Plan mode's verdict for a call that is not read-only (read-only calls were allowed before): the
 * plan proposal asks, always, as a safety ask (only the person leaves plan mode); anything else is
 * denied with a reason that tells the model how to go on.
 */
export function planModeDecision(subject: PermissionSubject): PermissionDecision {
  if (subject.leavesPlanMode === true) {
    return {
      behavior: "ask",
      reason: "the plan needs your approval: approving it leaves plan mode for the mode you pick",
      safety: true,
    };
  }
  return {
    behavior: "deny",
    reason:
      `plan mode only reads and plans, and ${subject.name} would change something: ` +
      "propose the plan (PlanPropose) and wait for it to be approved",
  };
}
