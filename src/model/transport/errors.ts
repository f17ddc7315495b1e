import { AgentScopeError, type ErrorInfo, type ErrorType } from "../../message/index.js";
import type { HeaderLookup } from "./types.js";

const TRANSIENT: ReadonlySet<ErrorType> = new Set(["rate_limit", "upstream", "connection", "timeout"]);

/**
 * A failure talking to a provider. `retryable` says whether another attempt may succeed;
 * `retryAfterMs` is the server's Retry-After, when it sent one.
 */
export class ProviderError extends AgentScopeError {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(
    info: ErrorInfo,
    options: { cause?: unknown; retryable?: boolean; retryAfterMs?: number } = {},
  ) {
    super(info, { cause: options.cause });
    this.name = "ProviderError";
    this.retryable = options.retryable ?? TRANSIENT.has(info.type);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Context for error messages. */
export interface ErrorContext {
  provider: string;
  url: string;
  credentialHint?: string;
}

function statusType(status: number): ErrorType {
  if (status === 401) return "authentication";
  if (status === 403) return "permission";
  if (status === 404) return "not_found";
  if (status === 408) return "timeout";
  if (status === 429) return "rate_limit";
  if (status >= 500) return "upstream";
  return "invalid_request";
}

function whatToCheck(type: ErrorType, ctx: ErrorContext): string {
  switch (type) {
    case "authentication":
      return `Check ${ctx.credentialHint ?? "the API key"}.`;
    case "permission":
      return "Check that the key's project/organization has access to this model and endpoint.";
    case "not_found":
      return `Check the model name and the base URL (${ctx.url}).`;
    case "rate_limit":
      return "Slow down or raise the rate limit / quota of the account.";
    case "invalid_request":
      return "Check the model name, options and messages sent (the provider's message above says which field).";
    case "timeout":
      return "Raise the `timeout` option or check that the server is responding.";
    default:
      return "The provider failed; this is usually transient.";
  }
}

/** The provider's own message from an error body, whatever its shape. */
export function providerMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim().slice(0, 500) || undefined;
  if (body === null || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  for (const key of ["message", "detail", "msg"]) {
    if (typeof record[key] === "string") return record[key] as string;
  }
  return undefined;
}

/** Retry-After / retry-after-ms in milliseconds, when present and sane (≤ 60 s). */
export function retryAfterMs(headers: HeaderLookup): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && Number.isFinite(Number(ms))) return clampRetryAfter(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return clampRetryAfter(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clampRetryAfter(date - Date.now());
}

function clampRetryAfter(ms: number): number | undefined {
  if (ms < 0) return 0;
  return ms <= 60_000 ? ms : undefined;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Maps a non-2xx response (status, headers, body text) to a ProviderError with advice. */
export function errorFromResponse(
  status: number,
  headers: HeaderLookup,
  bodyText: string,
  ctx: ErrorContext,
): ProviderError {
  const body = parseBody(bodyText);
  let type = statusType(status);
  const detail = providerMessage(body) ?? (bodyText.slice(0, 300) || "no details");
  let retryable: boolean | undefined;
  let waitMs = retryAfterMs(headers);
  const retryDelay = googleRetryDelayMs(body);
  if (retryDelay !== undefined) {
    // Google sends "You exceeded your current quota" for per-minute limits too, with a RetryInfo delay:
    // retryable when the delay is one we would wait for.
    waitMs ??= clampRetryAfter(retryDelay);
    retryable = waitMs !== undefined;
  } else if (type === "rate_limit" && isQuotaExhausted(bodyText)) retryable = false;
  if (status === 529) type = "upstream"; // Anthropic "overloaded"
  const message = `${ctx.provider} request failed with HTTP ${status}: ${detail}. ${whatToCheck(type, ctx)}`;
  return new ProviderError(
    { type, message, status, source: ctx.provider },
    { retryable, retryAfterMs: waitMs },
  );
}

/**
 * OpenAI answers 429 for an exhausted quota too; retrying cannot help. (Not any "quota": DashScope's
 * plain rate limit is `Throttling.RateQuota`.)
 */
function isQuotaExhausted(text: string): boolean {
  return /insufficient_quota|exceeded your current quota|billing/i.test(text);
}

/** The delay of a google.rpc.RetryInfo in an error body's `details` (`"17s"`, `"0.5s"`), in ms. */
export function googleRetryDelayMs(body: unknown): number | undefined {
  const error = (body as { error?: { details?: unknown } } | null)?.error;
  const details = error && typeof error === "object" ? error.details : undefined;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const record = detail as Record<string, unknown> | null;
    if (typeof record?.["@type"] !== "string" || !record["@type"].endsWith("google.rpc.RetryInfo")) continue;
    const delay = record.retryDelay;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/** An error the provider reported inside the stream (an SSE `error` event or an error line). */
export function errorFromBody(body: unknown, ctx: Pick<ErrorContext, "provider">): ProviderError {
  const detail = providerMessage(body) ?? JSON.stringify(body).slice(0, 300);
  const kind = JSON.stringify(body);
  // An exhausted quota is a rate limit that no retry fixes (as on the HTTP path).
  if (isQuotaExhausted(kind)) {
    return new ProviderError(
      {
        type: "rate_limit",
        message: `${ctx.provider} reported an error in the stream: ${detail}. Raise the quota or billing limit of the account.`,
        source: ctx.provider,
      },
      { retryable: false },
    );
  }
  const type: ErrorType = /rate|429|resource_exhausted/i.test(kind)
    ? "rate_limit"
    : /overload|server_error|internal|unavailable|5\d\d/i.test(kind)
      ? "upstream"
      : "invalid_request";
  const retryDelay = googleRetryDelayMs(body);
  const waitMs = retryDelay === undefined ? undefined : clampRetryAfter(retryDelay);
  const options = waitMs === undefined ? {} : { retryAfterMs: waitMs };
  return new ProviderError(
    { type, message: `${ctx.provider} reported an error in the stream: ${detail}`, source: ctx.provider },
    options,
  );
}

/** A chunk that is not what the provider documents. Never retried: the same request gets the same answer. */
export function malformedChunk(provider: string, expected: string, data: string): ProviderError {
  return new ProviderError(
    {
      type: "upstream",
      message: `${provider} sent a stream chunk without ${expected}: ${data.slice(0, 200)}. Check that the base URL points at a ${provider}-compatible server.`,
      source: provider,
    },
    { retryable: false },
  );
}

/** The stream ended before the provider said it was done (connection cut mid-way). */
export function streamCut(provider: string): ProviderError {
  return new ProviderError({
    type: "connection",
    message: `${provider} stream ended before the response was complete (connection cut). Retry the call; check proxies that buffer or cut long responses.`,
    source: provider,
  });
}

export function connectionError(cause: unknown, ctx: ErrorContext): ProviderError {
  const reason = cause instanceof Error ? describeCause(cause) : String(cause);
  return new ProviderError(
    {
      type: "connection",
      message: `could not reach ${ctx.provider} at ${ctx.url}: ${reason}. Check the base URL, the network and any proxy.`,
      source: ctx.provider,
    },
    { cause },
  );
}

function describeCause(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error)
    return `${error.message} (${(cause as { code?: string }).code ?? cause.message})`;
  return error.message;
}

export function timeoutError(ms: number, ctx: ErrorContext): ProviderError {
  return new ProviderError({
    type: "timeout",
    message: `${ctx.provider} sent nothing for ${ms} ms (${ctx.url}). ${whatToCheck("timeout", ctx)}`,
    source: ctx.provider,
  });
}

export function abortedError(provider: string, reason: unknown): AgentScopeError {
  return new AgentScopeError(
    { type: "aborted", message: `the ${provider} model call was aborted`, source: provider },
    { cause: reason },
  );
}

/** Appends how many retries were spent to a final error's message. */
export function withRetryCount(error: ProviderError, retries: number): ProviderError {
  if (retries === 0) return error;
  const info = { ...error.info, message: `${error.info.message} (gave up after ${retries} retries)` };
  return new ProviderError(info, { cause: error.cause, retryable: false });
}
