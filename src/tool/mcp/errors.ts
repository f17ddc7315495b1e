import { AgentScopeError, type ErrorType } from "../../message/index.js";

/** A failure talking to an MCP server: cannot connect, lost the connection, timed out, or refused. */
export class McpError extends AgentScopeError {
  constructor(type: ErrorType, server: string, message: string, cause?: unknown) {
    super({ type, message, source: `mcp:${server}` }, cause === undefined ? undefined : { cause });
    this.name = "McpError";
  }
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "";
}

/** The SDK's JSON-RPC error codes we branch on (its module is not loaded for this). */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** The request never left: the SDK had no transport (safe to resend after reconnecting). */
export function isNotSent(error: unknown): boolean {
  return error instanceof Error && error.message === "Not connected";
}

export function isTimeout(error: unknown): boolean {
  return errorName(error) === "McpError" && errorCode(error) === REQUEST_TIMEOUT;
}

/**
 * The connection is gone or unusable: closed, never open, or a transport failure (network error,
 * HTTP session lost). A JSON-RPC error from a live server or a malformed answer is not.
 */
export function isConnectionLoss(error: unknown): boolean {
  if (isNotSent(error)) return true;
  const name = errorName(error);
  if (name === "McpError") return errorCode(error) === CONNECTION_CLOSED;
  return name !== "ZodError" && name !== "$ZodError";
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
