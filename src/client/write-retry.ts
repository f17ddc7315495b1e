// How the typed client retries a keyed write (see client.ts #fetchOk).

/** The Idempotency-Key a request carries, if it does. */
export function keyOf(init: RequestInit): string | undefined {
  return (init.headers as Record<string, string> | undefined)?.["idempotency-key"];
}

/** How long a 503 asks to wait (its Retry-After in seconds), at most 2 s; 250 ms without one. */
export function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 2000) : 250;
}

export function pause(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}
