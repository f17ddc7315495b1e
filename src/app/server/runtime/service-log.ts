/** One line of what the service has to say about its runs (not a request log). */
export interface ServiceLogEntry {
  level: "info" | "warn" | "error";
  message: string;
  sessionId?: string;
}

/**
 * Where a runtime reports what happened to runs without a caller to tell: a run fenced off by the
 * store, a cut-off reply the recovery sweeper closed, a sweep that failed. Library code never prints:
 * `agentscope serve` writes these lines to its output; by default they go nowhere.
 */
export type ServiceLog = (entry: ServiceLogEntry) => void;

export const silentLog: ServiceLog = () => {};
