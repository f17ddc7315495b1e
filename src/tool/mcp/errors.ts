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

/**
 * The server cannot have acted on the request, so it is safe to resend after reconnecting: the SDK
 * had no transport, the HTTP server refused the connection, or it did not know the session (404).
 */
export function isNotSent(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.message === "Not connected") return true;
  if ((error.cause as { code?: unknown } | undefined)?.code === "ECONNREFUSED") return true;
  return errorCode(error) === 404 && error.message.startsWith("Streamable HTTP error");
}

/** A kept-alive HTTP socket the peer had already closed (fetch failed: "other side closed", reset). */
export function isStaleSocket(error: unknown): boolean {
  const code = errorCode((error as { cause?: unknown } | null)?.cause);
  return code === "UND_ERR_SOCKET" || code === "ECONNRESET";
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
