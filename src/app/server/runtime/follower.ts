import type { LoggedEvent, ServiceBackend } from "../backend/types.js";
import { type ClockWaiter, FollowClock, tickFor } from "./follow-clock.js";
import { type EventItem, type FeedListener, type SessionFeed, SessionFeeds } from "./session-feed.js";

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
  /** Deliver events with seq greater than this. */
  after: number;
  signal?: StopSignal;
  /** Stop once this resolves and everything logged before it has been delivered. */
  until?: Promise<unknown>;
  heartbeatMs: number;
  /**
   * While a reply may be in flight, called every `everyMs` of quiet to close it if its run died
   * (recovery appends the closing events, which this follower then delivers). Returns whether a run
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

/** Where a follower delivers: one item at a time, then once `end`. */
export interface FollowSink {
  /**
   * Takes one item; false asks the follower to wait for `resume()` before the next. Call `resume()`
   * later (on the sink's own "drain"), not from inside `push`: before `push` has answered, the
   * follower is not waiting yet and ignores it.
   */
  push(item: FollowItem): boolean;
  /**
   * Optional: the items pushed since the last call are one batch (what one turn delivered), and the
   * follower now waits. A sink that writes may keep the batch's items until here and write them at once.
   */
  flush?(): void;
  /** The follower has ended: by itself (`until`), stopped, or failed (`error`). Called once. */
  end(error?: unknown): void;
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
const NO_ITEMS: readonly EventItem[] = Object.freeze([]);

/** What a follower is waiting for, if anything. */
enum Wait {
  None,
  /** A read of the log. */
  Read,
  /** A liveness check of the run. */
  Check,
  /** The clock, the bus, `until` or the signal. */
  Sleep,
  /** The sink's `resume()`. */
  Sink,
}

/**
 * Where a follower's loop is: starting a turn (read), delivering the turn's batch, deciding what
 * next, or just woken from sleep.
 */
enum Step {
  Turn,
  Deliver,
  Decide,
  Wake,
}

/**
 * Streams a session's event log from `after` into a sink: the events already logged, then live ones
 * as they are appended (woken by the bus; re-reading every `pollMs` or heartbeat as a safety net), in
 * seq order, each exactly once; where the log's retention bound dropped events the follower had not
 * read yet, a `gap` item comes first. Followers of one session share reads and event items
 * (SessionFeeds), and all waiting followers share one timer (FollowClock).
 *
 * Driven by callbacks, not an async generator: a waiting follower is this one object, registered with
 * its feed and the clock, with no promise or suspended frame held from one event to the next (which
 * at thousands of streams is most of what each delta would otherwise leave for the GC to promote).
 */
export class Follower implements ClockWaiter, FeedListener {
  due = 0;
  readonly #backend: ServiceBackend;
  readonly #sessionId: string;
  readonly #options: FollowOptions;
  readonly #pollMs: number;
  readonly #hearsEveryAppend: boolean;
  #clock: FollowClock | undefined;
  #feed: SessionFeed | undefined;
  #sink: FollowSink | undefined;

  #cursor: number;
  /** Unknown at first (with a watch): the first quiet moment checks. */
  #inFlight: boolean;
  #checkedAt = 0;
  #quietSince = 0;
  #woken = false;
  #finished = false;
  /** `finished` as it was when the current turn began: only then has everything before it been read. */
  #turnFinished = false;
  #ended = false;

  #wait = Wait.None;
  #step = Step.Turn;
  #driving = false;
  /** The turn's batch: items[start..end), delivered up to index. */
  #items: readonly EventItem[] = NO_ITEMS;
  #start = 0;
  #index = 0;
  #end = 0;
  #fresh = true;

  constructor(backend: ServiceBackend, sessionId: string, options: FollowOptions) {
    this.#backend = backend;
    this.#sessionId = sessionId;
    this.#options = options;
    this.#pollMs = options.pollMs ?? backend.pollMs ?? Number.POSITIVE_INFINITY;
    this.#hearsEveryAppend = this.#pollMs === Number.POSITIVE_INFINITY;
    this.#cursor = options.after;
    this.#inFlight = options.watch !== undefined;
  }

  /** Whether this follower ends with a run (`until`), soon after that run's last event. */
  get endsWithRun(): boolean {
    return this.#options.until !== undefined;
  }

  /** Starts delivering into `sink` (once). */
  start(sink: FollowSink): void {
    if (this.#sink) throw new Error("Follower: already started");
    this.#sink = sink;
    const { signal, until, heartbeatMs, watch } = this.#options;
    if (signal?.aborted) {
      this.#close();
      return;
    }
    this.#clock = this.#options.clock ?? new FollowClock(tickFor(heartbeatMs, this.#pollMs, watch?.everyMs));
    this.#feed = (this.#options.feeds ?? new SessionFeeds(this.#backend)).join(this.#sessionId, this);
    signal?.addEventListener("abort", this.stop);
    void until?.then(this.#onFinish, this.#onFinish);
    this.#quietSince = Date.now();
    this.#drive();
  }

  /** Stops the follower (the sink's `end` is called, without an error). */
  readonly stop = (): void => {
    this.#close();
  };

  /** The sink can take more after a `push` that returned false. */
  resume(): void {
    if (this.#wait !== Wait.Sink) return;
    this.#wait = Wait.None;
    this.#drive();
  }

  /** The seq of the last event taken (see FeedListener). */
  get cursor(): number {
    return this.#cursor;
  }

  /**
   * The session's log may have grown (its feed heard an append). With `runEnded` (the end events of a
   * run that has freed the session, told in this process), a follower that ends with its run ends
   * after them: the run it follows is the session's only one, and it has nothing more to log.
   */
  notify(runEnded: boolean): void {
    this.#woken = true;
    if (runEnded && this.endsWithRun) this.#finished = true;
    this.fire();
  }

  /** Wakes a sleeping follower (the clock, the bus, `until`). */
  fire(): void {
    if (this.#wait !== Wait.Sleep || this.#ended) return;
    this.#wait = Wait.None;
    this.#clock!.delete(this);
    this.#step = Step.Wake;
    this.#drive();
  }

  readonly #onFinish = (): void => {
    this.#finished = true;
    this.fire();
  };

  /** Runs the loop until the follower must wait (or has ended); a call from inside the loop is a no-op. */
  #drive(): void {
    if (this.#driving) return;
    this.#driving = true;
    try {
      while (this.#wait === Wait.None && !this.#ended) {
        if (this.#step === Step.Turn) this.#turn();
        else if (this.#step === Step.Deliver) this.#deliver();
        else if (this.#step === Step.Decide) this.#decide();
        else this.#wake();
      }
      if (!this.#ended) this.#sink!.flush?.();
    } catch (error) {
      this.#close(error);
    } finally {
      this.#driving = false;
    }
  }

  /** Woken from sleep: a keep-alive if it has been quiet for a heartbeat, then a new turn. */
  #wake(): void {
    this.#step = Step.Turn;
    if (Date.now() - this.#quietSince < this.#options.heartbeatMs) return;
    this.#quietSince = Date.now();
    if (!this.#sink!.push(HEARTBEAT)) this.#wait = Wait.Sink;
  }

  /** Starts a turn: the kept items (the common case for a live follower, no promise), else a read. */
  #turn(): void {
    const feed = this.#feed!;
    this.#turnFinished = this.#finished;
    this.#woken = false;
    const index = feed.keptIndex(this.#cursor);
    if (index >= 0) {
      this.#batch(feed.kept, index, feed.keptComplete);
    } else if (this.#hearsEveryAppend && feed.caughtUp(this.#cursor)) {
      // Had every append this process was told of, and hears them all: nothing to read.
      this.#batch(NO_ITEMS, 0, true);
    } else {
      this.#wait = Wait.Read;
      feed.read(this.#cursor, PAGE).then(this.#onRead, this.#onFailure);
    }
  }

  readonly #onRead = ({ items, fresh }: { items: EventItem[]; fresh: boolean }): void => {
    if (this.#ended) return;
    this.#wait = Wait.None;
    this.#batch(items, 0, fresh);
    this.#drive();
  };

  readonly #onFailure = (error: unknown): void => {
    this.#close(error);
  };

  #batch(items: readonly EventItem[], index: number, fresh: boolean): void {
    this.#items = items;
    this.#start = index;
    this.#index = index;
    this.#end = Math.min(items.length, index + PAGE);
    this.#fresh = fresh;
    this.#step = Step.Deliver;
  }

  /** Delivers the turn's batch, pausing where the sink asks to. */
  #deliver(): void {
    const sink = this.#sink!;
    const items = this.#items;
    const watching = this.#options.watch !== undefined;
    while (this.#index < this.#end) {
      const item = items[this.#index]!;
      this.#index += 1;
      // The log is gap-free: a later first event means the retention bound dropped the ones between
      // (at the start, or under a follower that fell that far behind).
      let more = true;
      if (item.seq > this.#cursor + 1) more = sink.push({ kind: "gap", firstSeq: item.seq });
      if (this.#ended) return;
      more = sink.push(item) && more;
      this.#cursor = item.seq;
      if (watching) this.#inFlight = inFlightAfter(item.event) ?? this.#inFlight;
      if (this.#ended) return;
      if (!more) {
        this.#wait = Wait.Sink;
        if (this.#index < this.#end) return;
      }
    }
    const count = this.#end - this.#start;
    this.#items = NO_ITEMS;
    this.#step = Step.Decide;
    if (count > 0) {
      // A batch delivered: the feed lets the batch it keeps go if every follower has it now.
      this.#feed!.letGoIfTaken();
      this.#quietSince = Date.now();
      // A short page from a fresh read is everything logged when this turn began; anything appended
      // since has woken this follower (the bus speaks after the append). Else read on.
      if (count === PAGE || !this.#fresh) this.#step = Step.Turn;
    }
  }

  /** After a batch: end, take another turn, check the run is alive, or sleep until something happens. */
  #decide(): void {
    if (this.#turnFinished) {
      this.#close();
      return;
    }
    this.#step = Step.Turn;
    if (this.#woken || this.#finished) return;
    const { watch, heartbeatMs } = this.#options;
    const now = Date.now();
    if (watch && this.#inFlight && now - this.#checkedAt >= watch.everyMs) {
      this.#checkedAt = now;
      this.#wait = Wait.Check;
      // Then a new turn: the check took time, and events (or a wake-up) may have come meanwhile.
      watch.check().then(this.#onChecked, this.#onCheckFailed);
      return;
    }
    const heartbeatDue = this.#quietSince + heartbeatMs;
    const watchDue = watch && this.#inFlight ? this.#checkedAt + watch.everyMs : heartbeatDue;
    this.due = Math.min(heartbeatDue, watchDue, now + this.#pollMs);
    this.#wait = Wait.Sleep;
    this.#clock!.add(this);
  }

  readonly #onChecked = (outcome: "running" | "closed" | "idle"): void => {
    if (this.#ended) return;
    if (outcome === "idle") this.#inFlight = false;
    this.#wait = Wait.None;
    this.#drive();
  };

  readonly #onCheckFailed = (): void => {
    this.#onChecked("running");
  };

  /** Ends the follower once: leaves the clock, the feed and the signal, then ends the sink. */
  #close(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#wait = Wait.None;
    this.#items = NO_ITEMS;
    this.#clock?.delete(this);
    this.#feed?.leave(this);
    this.#options.signal?.removeEventListener("abort", this.stop);
    this.#sink?.end(error);
  }
}
