/**
 * The kind of a failure, so callers can branch on it without parsing messages. One vocabulary for
 * every layer: a provider's failure, a refused request and the service's error body all use it (the
 * HTTP edge maps each kind to a status code: `STATUS_OF_KIND` in `agentscope/protocol`).
 */
export type ErrorType =
  | "authentication"
  | "permission"
  | "forbidden"
  | "rate_limit"
  | "invalid_request"
  | "invalid_json"
  | "payload_too_large"
  | "unsupported_media_type"
  | "not_found"
  /** Someone else changed it first (a compare-and-set lost, an id taken). */
  | "conflict"
  /** Not possible in the state it is in (no reply waiting for an answer, say); nothing changed. */
  | "invalid_state"
  /** A run holds the session; wait for it to finish or interrupt it. */
  | "run_in_progress"
  /** Something the operation needs cannot be reached right now; retry shortly. */
  | "unavailable"
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

/**
 * Marks every AgentScopeError, whichever copy of the package built it (`Symbol.for` is shared by
 * every module in the process), so `isInstance` works where `instanceof` does not.
 */
const BRAND: unique symbol = Symbol.for("agentscope.error");

/** The class names of `value`'s prototype chain (`["StateConflictError", "AgentScopeError", ...]`). */
function classNames(value: object): Set<string> {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(value); proto; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string") names.add(name);
  }
  return names;
}

/**
 * The root of every error agentscope throws: an Error carrying an ErrorInfo, whose `info.type` is
 * its kind. A subclass built from a plain message gets its class's `errorType`.
 */
export class AgentScopeError extends Error {
  /** The kind an error of this class has when it is built from a message (subclasses override it). */
  static readonly errorType: ErrorType = "internal";

  readonly info: ErrorInfo;
  constructor(info: ErrorInfo | string, options?: { cause?: unknown }) {
    const full =
      typeof info === "string"
        ? { type: (new.target as typeof AgentScopeError).errorType, message: info }
        : info;
    super(full.message, options);
    this.name = "AgentScopeError";
    this.info = full;
  }

  /**
   * Whether `value` is an error of this class, also when another copy of the package made it (then
   * `instanceof` says no): it carries the agentscope brand and, for a subclass, the class's name.
   */
  static isInstance(value: unknown): value is AgentScopeError {
    if (typeof value !== "object" || value === null || (value as { [BRAND]?: unknown })[BRAND] !== true)
      return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the check was called on
    return this === AgentScopeError || value instanceof this || classNames(value).has(this.name);
  }
}
Object.defineProperty(AgentScopeError.prototype, BRAND, { value: true });

/** Turns anything thrown into an ErrorInfo. */
export function toErrorInfo(error: unknown, fallbackType: ErrorType = "internal"): ErrorInfo {
  if (AgentScopeError.isInstance(error)) return error.info;
  if (error instanceof Error) {
    if (error.name === "AbortError") return { type: "aborted", message: error.message || "aborted" };
    return { type: fallbackType, message: error.message };
  }
  return { type: fallbackType, message: String(error) };
}
