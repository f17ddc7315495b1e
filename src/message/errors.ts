/** The kind of a failure, so callers can branch on it without parsing messages. */
export type ErrorType =
  | "authentication"
  | "permission"
  | "rate_limit"
  | "invalid_request"
  | "not_found"
  | "upstream"
  | "connection"
  | "timeout"
  | "aborted"
  | "internal";

/** A failure as plain data: what failed and what to do about it. Stored on Msg and REPLY_END. */
export interface ErrorInfo {
  type: ErrorType;
  message: string;
  /** HTTP status when the failure came from an HTTP peer. */
  status?: number;
  /** Provider or component that failed (`openai`, `anthropic`, `tool:bash`, ...). */
  source?: string;
}

/** An Error carrying an ErrorInfo. */
export class AgentScopeError extends Error {
  readonly info: ErrorInfo;
  constructor(info: ErrorInfo, options?: { cause?: unknown }) {
    super(info.message, options);
    this.name = "AgentScopeError";
    this.info = info;
  }

  static isInstance(value: unknown): value is AgentScopeError {
    return (
      value instanceof Error &&
      (value as { info?: unknown }).info !== undefined &&
      value.name.endsWith("Error")
    );
  }
}

/** Turns anything thrown into an ErrorInfo. */
export function toErrorInfo(error: unknown, fallbackType: ErrorType = "internal"): ErrorInfo {
  if (error instanceof AgentScopeError) return error.info;
  if (error instanceof Error) {
    if (error.name === "AbortError") return { type: "aborted", message: error.message || "aborted" };
    return { type: fallbackType, message: error.message };
  }
  return { type: fallbackType, message: String(error) };
}
