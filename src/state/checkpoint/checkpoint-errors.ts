import { AgentScopeError, type ErrorType } from "../../message/index.js";

/**
 * A checkpoint cannot be restored as a whole: its workspace snapshot was pruned by the retention
 * policy, or a blob it names is gone. Nothing was changed (`info.type`: invalid_state).
 */
export class CheckpointUnavailableError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_state";
  constructor(why: string) {
    super(`the checkpoint cannot be restored: ${why}; nothing was changed`);
    this.name = "CheckpointUnavailableError";
  }
}
