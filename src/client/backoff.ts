/** How a stream retries a lost connection: exponential backoff with jitter, capped. */
export interface RetryPolicy {
  /** First delay in ms (default 250). */
  initialDelayMs?: number;
  /** Largest delay in ms (default 5000). */
  maxDelayMs?: number;
  /** Failed attempts in a row before the stream gives up with a ConnectionError (default 20). */
  maxAttempts?: number;
}

/** The delay before retry number `attempt` (1-based): initial × 2^(attempt-1), capped, ±20 % jitter. */
export function backoffDelay(attempt: number, policy: RetryPolicy = {}): number {
  const initial = policy.initialDelayMs ?? 250;
  const max = policy.maxDelayMs ?? 5000;
  const base = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Resolves after `ms`, or at once (without throwing) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
