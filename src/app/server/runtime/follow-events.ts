import type { LoggedEvent, ServiceBackend } from "../backend/types.js";

/** What a follower yields: logged events, a keep-alive when nothing happened, or a gap after trimming. */
export type FollowItem =
  | ({ kind: "event" } & LoggedEvent)
  | { kind: "heartbeat" }
  | { kind: "gap"; firstSeq: number };

export interface FollowOptions {
  /** Yield events with seq greater than this. */
  after: number;
  signal: AbortSignal;
  /** Stop once this resolves and everything logged before it has been yielded. */
  until?: Promise<unknown>;
  heartbeatMs: number;
  /**
   * While a reply may be in flight, called every `everyMs` of quiet to close it if its run died
   * (recovery appends the closing events, which this follower then yields). Returns whether a run
   * still holds the session; "idle" stops the checks until a new reply starts.
   */
  watch?: { everyMs: number; check: () => Promise<"running" | "closed" | "idle"> };
}

/** Whether an event leaves the top-level reply in flight (true), ends or pauses it (false), or neither. */
function inFlightAfter(event: LoggedEvent["event"]): boolean | undefined {
  if (event.source !== undefined) return undefined;
  if (event.type === "REPLY_END") return false;
  if (event.type === "REQUIRE_USER_CONFIRM" || event.type === "REQUIRE_EXTERNAL_EXECUTION") return false;
  return true;
}

const PAGE = 500;

/**
 * Streams a session's event log from `after`: the events already logged, then live ones as they are
 * appended (woken by the bus; re-reading every `pollMs` or heartbeat as a safety net), in seq order,
 * each exactly once.
 */
export async function* followEvents(
  backend: ServiceBackend,
  sessionId: string,
  options: FollowOptions,
): AsyncGenerator<FollowItem> {
  const { signal, heartbeatMs, watch } = options;
  let cursor = options.after;
  // Unknown at first: the first quiet moment checks.
  let inFlight = watch !== undefined;
  let checkedAt = 0;
  let woken = false;
  let finished = false;
  let wake: (() => void) | undefined;
  const unsubscribe = backend.bus.subscribe(sessionId, (message) => {
    if (message.kind !== "events") return;
    woken = true;
    wake?.();
  });
  void options.until?.then(
    () => {
      finished = true;
      wake?.();
    },
    () => {
      finished = true;
      wake?.();
    },
  );
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);
  try {
    const first = await backend.events.firstSeq(sessionId);
    if (first > cursor + 1) {
      yield { kind: "gap", firstSeq: first };
      cursor = first - 1;
    }
    let quietSince = Date.now();
    while (!signal.aborted) {
      const wasFinished = finished;
      woken = false;
      const batch = await backend.events.read(sessionId, cursor, PAGE);
      for (const logged of batch) {
        if (signal.aborted) return;
        yield { kind: "event", ...logged };
        cursor = logged.seq;
        if (watch) inFlight = inFlightAfter(logged.event) ?? inFlight;
      }
      if (batch.length > 0) {
        quietSince = Date.now();
        continue;
      }
      if (wasFinished) return;
      if (woken || finished) continue;
      if (watch && inFlight && Date.now() - checkedAt >= watch.everyMs) {
        checkedAt = Date.now();
        const outcome = await watch.check().catch(() => "running" as const);
        if (outcome === "idle") inFlight = false;
        continue; // re-read: the check took time, and events (or a wake-up) may have come meanwhile
      }
      const due = quietSince + heartbeatMs - Date.now();
      const watchDue = watch && inFlight ? checkedAt + watch.everyMs - Date.now() : due;
      const wait = Math.max(1, Math.min(due, watchDue, backend.pollMs ?? due));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
      if (!signal.aborted && Date.now() - quietSince >= heartbeatMs) {
        yield { kind: "heartbeat" };
        quietSince = Date.now();
      }
    }
  } finally {
    unsubscribe();
    signal.removeEventListener("abort", onAbort);
  }
}
