import { AgentScopeError } from "../message/index.js";

/** A case, dataset or eval run that cannot go on: the message names the case, file or option at fault. */
export class EvalCaseError extends AgentScopeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super({ type: "invalid_request", source: "eval", message }, options);
    this.name = "EvalCaseError";
  }
}
