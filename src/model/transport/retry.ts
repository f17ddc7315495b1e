import { abortedError, ProviderError, withRetryCount } from "./errors.js";

export const DEFAULT_MAX_RETRIES = 2;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Delay before retry number `attempt + 1`: the server's Retry-After when given, otherwise
 * exponential backoff (0.5 s, 1 s, 2 s … capped at 8 s) with up to 25% jitter. */
export function backoffDelay(attempt: number, error?: ProviderError): number {
  if (error?.retryAfterMs !== undefined) return error.retryAfterMs;
  const delay = Math.min(BASE_DELAY_MS * 2 ** attempt, MAX_DELAY_MS);
  return delay * (1 - Math.random() * 0.25);
}

/** Resolves after `ms`, or rejects with an `aborted` AgentScopeError when `signal` fires first. */
export function sleep(ms: number, signal: AbortSignal | undefined, provider = "model"): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(provider, signal.reason));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(provider, signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Decides what to do with a failed attempt: returns the delay before the next attempt, or throws
 * the error to give up (not transient, retries spent, or output already reached the caller).
 */
export function nextDelayOrThrow(
  error: unknown,
  attempt: number,
  maxRetries: number,
  emitted = false,
): number {
  if (!(error instanceof ProviderError)) throw error;
  if (emitted || !error.retryable) throw error;
  if (attempt >= maxRetries) throw withRetryCount(error, attempt);
  return backoffDelay(attempt, error);
}
