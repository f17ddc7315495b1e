import type { LoggedEvent, ServiceBackend } from "../backend/types.js";
import { type ClockWaiter, FollowClock, tickFor } from "./follow-clock.js";
import { type EventItem, type FeedListener, SessionFeeds } from "./session-feed.js";

/** What a follower yields: logged events, a keep-alive when nothing happened, or a gap after trimming. */
export type FollowItem = EventItem | { kind: "heartbeat" } | { kind: "gap"; firstSeq: number };

/**
 * What a follower needs of the signal that stops it: an AbortSignal, or anything with these members
 * (an SSE stream uses a one-listener latch: an AbortController per stream costs more than the rest of
 * opening it).
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export interface FollowOptions {
  /** Yield events with seq greater than this. */
  after: number;
  signal: StopSignal;
  /** Stop once this resolves and everything logged before it has been yielded. */
  until?: Promise<unknown>;
  heartbeatMs: number;
  /**
   * While a reply may be in flight, called every `everyMs` of quiet to close it if its run died
   * (recovery appends the closing events, which this follower then yields). Returns whether a run
   * still holds the session; "idle" stops the checks until a new reply starts.
   */
  watch?: { everyMs: number; check: () => Promise<"running" | "closed" | "idle"> };
  /**
   * Re-read the log every `pollMs` of quiet (default the backend's `pollMs`: writers in other
   * processes it cannot hear from). Infinity when every append reaches this process's bus (the run
   * is local).
   */
  pollMs?: number;
  /** The process's shared feeds and clock (a ServiceRuntime passes its own; default: this follower's). */
  feeds?: SessionFeeds;
  clock?: FollowClock;
}

/** Whether an event leaves the top-level reply in flight (true), ends or pauses it (false), or neither. */
function inFlightAfter(event: LoggedEvent["event"]): boolean | undefined {
  if (event.source !== undefined) return undefined;
  if (event.type === "REPLY_END") return false;
  if (event.type === "REQUIRE_USER_CONFIRM" || event.type === "REQUIRE_EXTERNAL_EXECUTION") return false;
  return true;
}

const PAGE = 500;
const HEARTBEAT: FollowItem = Object.freeze({ kind: "heartbeat" });
const NOTHING_NEW = Object.freeze({ items: Object.freeze([]) as readonly EventItem[], fresh: true });

/**
 * One follower's waiting state, one object per stream: the bus (through its session feed), the
 * shared clock, the abort signal and `until` all wake it through `fire`, with no closure per wait.
 */
class Waiter implements ClockWaiter, FeedListener {
  due = 0;
  woken = false;
  finished = false;
  /** The follower's signal has aborted (a flag: AbortSignal's own getter is slow on the hot path). */
  aborted = false;
  #resolve: (() => void) | undefined;

  sleep(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#resolve = resolve;
    });
  }

  readonly fire = (): void => {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.();
  };

  notify(): void {
    this.woken = true;
    this.fire();
  }

  readonly abort = (): void => {
    this.aborted = true;
    this.fire();
  };

  readonly finish = (): void => {
    this.finished = true;
    this.fire();
  };
}

/**
 * Streams a session's event log from `after`: the events already logged, then live ones as they are
 * appended (woken by the bus; re-reading every `pollMs` or heartbeat as a safety net), in seq order,
 * each exactly once; where the log's retention bound dropped events the follower had not read yet, a
 * `gap` item comes first. Followers of one session share reads and event items (SessionFeeds), and all
 * waiting followers share one timer (FollowClock).
 */
export async function* followEvents(
  backend: ServiceBackend,
  sessionId: string,
  options: FollowOptions,
): AsyncGenerator<FollowItem> {
  const { signal, heartbeatMs, watch } = options;
  const pollMs = options.pollMs ?? backend.pollMs ?? Number.POSITIVE_INFINITY;
  const hearsEveryAppend = pollMs === Number.POSITIVE_INFINITY;
  const clock = options.clock ?? new FollowClock(tickFor(heartbeatMs, pollMs, watch?.everyMs));
  const waiter = new Waiter();
  const feed = (options.feeds ?? new SessionFeeds(backend)).join(sessionId, waiter);
  let cursor = options.after;
  // Unknown at first: the first quiet moment checks.
  let inFlight = watch !== undefined;
  let checkedAt = 0;
  void options.until?.then(waiter.finish, waiter.finish);
  waiter.aborted = signal.aborted;
  signal.addEventListener("abort", waiter.abort);
  try {
    let quietSince = Date.now();
    while (!waiter.aborted) {
      const wasFinished = waiter.finished;
      waiter.woken = false;
      // Kept items (the common case for a live follower) come without a promise; a follower that
      // hears every append and has had them all (woken by its clock) need not read the log.
      const { items: batch, fresh } =
        feed.readKept(cursor, PAGE) ??
        (hearsEveryAppend && feed.caughtUp(cursor) ? NOTHING_NEW : await feed.read(cursor, PAGE));
      for (const item of batch) {
        if (waiter.aborted) return;
        // The log is gap-free: a later first event means the retention bound dropped the ones between
        // (at the start, or under a follower that fell that far behind).
        if (item.seq > cursor + 1) yield { kind: "gap", firstSeq: item.seq };
        yield item;
        cursor = item.seq;
        if (watch) inFlight = inFlightAfter(item.event) ?? inFlight;
      }
      if (batch.length > 0) {
        quietSince = Date.now();
        // A short page from a fresh read is everything logged when this turn began; anything appended
        // since has woken this follower (the bus speaks after the append). Else read on.
        if (batch.length === PAGE || !fresh) continue;
      }
      if (wasFinished) return;
      if (waiter.woken || waiter.finished) continue;
      if (watch && inFlight && Date.now() - checkedAt >= watch.everyMs) {
        checkedAt = Date.now();
        const outcome = await watch.check().catch(() => "running" as const);
        if (outcome === "idle") inFlight = false;
        continue; // re-read: the check took time, and events (or a wake-up) may have come meanwhile
      }
      if (waiter.aborted) return;
      const heartbeatDue = quietSince + heartbeatMs;
      const watchDue = watch && inFlight ? checkedAt + watch.everyMs : heartbeatDue;
      waiter.due = Math.min(heartbeatDue, watchDue, Date.now() + pollMs);
      const slept = waiter.sleep();
      clock.add(waiter);
      await slept;
      clock.delete(waiter);
      if (!waiter.aborted && Date.now() - quietSince >= heartbeatMs) {
        yield HEARTBEAT;
        quietSince = Date.now();
      }
    }
  } finally {
    clock.delete(waiter);
    feed.leave(waiter);
    signal.removeEventListener("abort", waiter.abort);
  }
}
