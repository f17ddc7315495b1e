import { AgentScopeError, type ErrorType } from "../message/index.js";
/** Kinds of sandbox failure, so callers can tell a missing binary from a refused namespace. */
export type SandboxUnavailableReason = "not_installed" | "cannot_start" | "no_process_limit";

/**
 * The sandbox cannot run here: bubblewrap is missing or refused to start, or a limit asked for
 * cannot be enforced. A sandboxed workspace never falls back to running on the host; it throws this.
 */
export class SandboxUnavailableError extends AgentScopeError {
  static override readonly errorType: ErrorType = "unavailable";
  constructor(
    readonly reason: SandboxUnavailableReason,
    message: string,
  ) {
    super(message);
    this.name = "SandboxUnavailableError";
  }

  static override isInstance(error: unknown): error is SandboxUnavailableError {
    return error instanceof Error && error.name === "SandboxUnavailableError";
  }
}

/** A workspace path that is malformed or leaves the workspace root (`../`, an absolute path, a symlink out). */
export class WorkspacePathError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "WorkspacePathError";
  }

  static override isInstance(error: unknown): error is WorkspacePathError {
    return error instanceof Error && error.name === "WorkspacePathError";
  }
}
