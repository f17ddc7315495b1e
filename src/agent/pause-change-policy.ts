import type { PermissionContext } from "../permission/index.js";

/**
 * What a resumed pause does when what its call depends on changed since it paused (a deploy with
 * another tool schema, permission behaviour, agent rules or mode, model): `ask_again` (the default)
 * does not take the answer and asks the person again with the difference shown; `continue` takes
 * it. A call whose tool is gone fails closed either way (an error result that says so; it never runs).
 */
export type PauseChangePolicy = "ask_again" | "continue";

/** The agent-level parts of a fingerprint: its permission defaults and its model. */
export interface FingerprintBase {
  permissionDefaults: Partial<PermissionContext>;
  onPauseChange?: PauseChangePolicy;
}
