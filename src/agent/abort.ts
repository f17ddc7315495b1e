export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== "AbortError") return reason.message;
  if (typeof reason === "string") return reason;
  return "interrupted";
}

/** Resolves with `value`, or rejects as soon as `signal` aborts (for tools that ignore the signal). */
export function untilAborted<T>(value: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (!(value instanceof Promise)) return Promise.resolve(value);
  if (signal.aborted) return Promise.reject(new Error(abortReason(signal)));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(abortReason(signal)));
    signal.addEventListener("abort", onAbort, { once: true });
    value.then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
