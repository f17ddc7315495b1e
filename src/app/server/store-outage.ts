/**
 * Whether an error means the store cannot be reached right now (a server down or restarting, a
 * dropped connection, a database busy past its timeout), as opposed to a bug or bad data: the service
 * answers those 503 `unavailable` with Retry-After, and keeps the driver's text out of the answer.
 * Recognised by code or class, never by a whole message alone where a code exists:
 * - Node's socket errors (any driver): ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, EHOSTUNREACH, …
 * - ioredis: MaxRetriesPerRequestError, "Connection is closed."
 * - pg: SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown, cannot connect now), 53300
 *   (too many connections), and its "Connection terminated" / connect timeout errors
 * - mysql2: PROTOCOL_CONNECTION_LOST, ER_CON_COUNT_ERROR and its other fatal protocol errors
 * - better-sqlite3: SQLITE_BUSY and SQLITE_LOCKED (another writer held the file past the busy timeout)
 * The chain of `cause`s and an AggregateError's `errors` are searched too (a backend may wrap).
 */

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ERR_SOCKET_CLOSED",
]);

const MYSQL_CODES = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
  "PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR",
  "PROTOCOL_ENQUEUE_AFTER_QUIT",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
]);

/** pg's SQLSTATEs: connection exceptions, the server shutting down or starting, too many connections. */
const PG_CODE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;

const SQLITE_CODE = /^SQLITE_(BUSY|LOCKED)(_[A-Z]+)?$/;

const CLASS_NAMES = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError"]);

/** Texts of drivers' connection errors that carry no code (ioredis, pg). */
const MESSAGES = [
  /^Connection is closed\.?$/,
  /^Connection terminated( unexpectedly| due to connection timeout)?$/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
];

function isOutageItself(error: { code?: unknown; name?: unknown; message?: unknown }): boolean {
  const code = typeof error.code === "string" ? error.code : undefined;
  if (
    code !== undefined &&
    (NETWORK_CODES.has(code) || MYSQL_CODES.has(code) || PG_CODE.test(code) || SQLITE_CODE.test(code))
  )
    return true;
  if (typeof error.name === "string" && CLASS_NAMES.has(error.name)) return true;
  const message = typeof error.message === "string" ? error.message : "";
  return MESSAGES.some((pattern) => pattern.test(message));
}

export function isStoreOutage(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== "object" || next === null || seen.has(next)) continue;
    seen.add(next);
    if (isOutageItself(next as Record<string, unknown>)) return true;
    pending.push((next as { cause?: unknown }).cause);
    const errors = (next as { errors?: unknown }).errors;
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return false;
}
