import type { BusMessage, LoggedEvent, ServiceBackend } from "../backend/types.js";

/** A logged event as a follower yields it: one object per event, shared by every follower in this process. */
export type EventItem = { kind: "event" } & LoggedEvent;

/** A follower of a session: told when the session's log may have grown. */
export interface FeedListener {
  /** `runEnded`: the notification carries the end events of a run that has freed the session. */
  notify(runEnded: boolean): void;
  /** The seq of the last event this listener has taken (delivered or skipped). */
  readonly cursor: number;
}

function toItem(logged: LoggedEvent): EventItem {
  return logged.json === undefined
    ? { kind: "event", seq: logged.seq, event: logged.event }
    : { kind: "event", seq: logged.seq, event: logged.event, json: logged.json };
}

/**
 * The sessions followed in this process. All followers of one session share one bus subscription,
 * one read of the log per change and one item per event (so an event is serialised once, however
 * many follow it): see SessionFeed.
 */
export class SessionFeeds {
  readonly #feeds = new Map<string, SessionFeed>();

  constructor(private readonly backend: ServiceBackend) {}

  /** Registers a follower of the session; `feed.leave(listener)` when it stops. */
  join(sessionId: string, listener: FeedListener): SessionFeed {
    let feed = this.#feeds.get(sessionId);
    if (!feed) {
      const created = new SessionFeed(this.backend, sessionId, () => {
        if (this.#feeds.get(sessionId) === created) this.#feeds.delete(sessionId);
      });
      feed = created;
      this.#feeds.set(sessionId, feed);
    }
    feed.add(listener);
    return feed;
  }

  /** Drops what was read of a deleted session (a new session may take its id and restart at seq 1). */
  forget(sessionId: string): void {
    this.#feeds.get(sessionId)?.reset();
  }

  /** Sessions followed now (for tests and diagnostics). */
  get size(): number {
    return this.#feeds.size;
  }
}

/**
 * What a feed keeps when it keeps nothing: one shared array, not a new one per batch let go (which
 * would wait for the next append, be promoted, and keep that append's items alive once dead).
 */
const NOTHING_KEPT: readonly EventItem[] = Object.freeze([]);

/**
 * One followed session: the events the newest read of the log's tail returned, and at most one such
 * read at a time. The followers at the tail (woken by the same append) get those shared items; one
 * that is behind them (catching up, or slow) reads the log itself, so it never loses an event and
 * never holds the others back. Only the newest batch is kept, and only until every follower has
 * taken it (they do at once when they are at the tail): a live stream then holds no event between
 * two appends. Events held that long (a model's seconds between deltas) outlived two young-generation
 * collections and were promoted, so every delta had made old garbage for the next full collection.
 */
export class SessionFeed {
  readonly #listeners = new Set<FeedListener>();
  #items: readonly EventItem[] = NOTHING_KEPT;
  /** The seq the kept batch ended at (kept after the batch itself is let go), if any. */
  #tail: number | undefined;
  /**
   * The kept items end at the newest append this process has been told of: the last notification
   * carried its events (a run in this process appended them). A follower served from them then knows
   * as much as a read of the log would tell it, so it need not read the log back.
   */
  #complete = false;
  /** Bus notifications so far: a read joins an in-flight one only if nothing was appended since it began. */
  #notified = 0;
  #fetch: { after: number; notified: number; done: Promise<EventItem[]> } | undefined;
  readonly #unsubscribe: () => void;

  constructor(
    private readonly backend: ServiceBackend,
    private readonly sessionId: string,
    private readonly onEmpty: () => void,
  ) {
    this.#unsubscribe = backend.bus.subscribe(sessionId, this.#onMessage);
  }

  readonly #onMessage = (message: BusMessage): void => {
    if (message.kind !== "events") return;
    this.#notified += 1;
    const events = message.events;
    if (events !== undefined && events.length > 0) {
      this.#items = events.map(toItem);
      this.#tail = events.at(-1)!.seq;
      this.#complete = true;
    } else {
      this.#complete = false; // appended elsewhere (another replica): only a read of the log knows what
    }
    const runEnded = message.runEnded === true;
    for (const listener of this.#listeners) listener.notify(runEnded);
    this.letGoIfTaken();
  };

  /**
   * Drops the kept batch once every follower has it (checked after each notification, and by a
   * follower that finished taking it later); one that wants it after that reads the log.
   */
  letGoIfTaken(): void {
    const tail = this.#tail;
    if (tail === undefined || this.#items.length === 0) return;
    for (const listener of this.#listeners) if (listener.cursor < tail) return;
    this.#items = NOTHING_KEPT;
  }

  add(listener: FeedListener): void {
    this.#listeners.add(listener);
  }

  leave(listener: FeedListener): void {
    if (!this.#listeners.delete(listener) || this.#listeners.size > 0) return;
    this.#unsubscribe();
    this.onEmpty();
  }

  reset(): void {
    this.#items = NOTHING_KEPT;
    this.#tail = undefined;
    this.#complete = false;
    this.#fetch = undefined;
  }

  /**
   * Up to `limit` events with seq > `after`, in order (the log's `read`, shared where it can be).
   * `fresh`: whatever was appended before this call (and notified) is in the items, or beyond
   * `limit`: they come from a read of the log that began after this call did, or from the kept items
   * while those end at the newest append notified. Otherwise they were kept from an earlier read.
   */
  async read(after: number, limit: number): Promise<{ items: EventItem[]; fresh: boolean }> {
    const kept = this.#cached(after, limit);
    if (kept) return { items: kept, fresh: this.#complete };
    const tail = this.#tail;
    if (tail !== undefined && after < tail) {
      // Behind the kept batch: read on its own, without disturbing the shared tail.
      const logged = await this.backend.events.read(this.sessionId, after, limit);
      return { items: logged.map(toItem), fresh: true };
    }
    const fetch = this.#fetch;
    // Joining a read in flight is as good as starting one only if nothing was appended since it began.
    if (fetch && fetch.after === after && fetch.notified === this.#notified) {
      await fetch.done;
      return { items: this.#cached(after, limit) ?? [], fresh: true };
    }
    const done = this.backend.events.read(this.sessionId, after, limit).then((logged) => this.#keep(logged));
    this.#fetch = { after, notified: this.#notified, done };
    try {
      return { items: await done, fresh: true };
    } finally {
      if (this.#fetch?.done === done) this.#fetch = undefined;
    }
  }

  /**
   * Whether the kept items end at `after` and at the newest append this process has been told of: a
   * follower there that hears every append (its run is in this process) has nothing to read.
   */
  caughtUp(after: number): boolean {
    return this.#complete && this.#tail === after;
  }

  /** The items kept from the newest read or notification (never mutated: replaced as a whole). */
  get kept(): readonly EventItem[] {
    return this.#items;
  }

  /** Whether the kept items end at the newest append this process has been told of (see `read`'s `fresh`). */
  get keptComplete(): boolean {
    return this.#complete;
  }

  /** Where the event after `after` is in `kept`, or -1 if it is not there. */
  keptIndex(after: number): number {
    const items = this.#items;
    if (items.length === 0) return -1;
    const index = after + 1 - items[0]!.seq;
    return index >= 0 && index < items.length ? index : -1;
  }

  #cached(after: number, limit: number): EventItem[] | undefined {
    const index = this.keptIndex(after);
    return index < 0 ? undefined : this.#items.slice(index, index + limit);
  }

  /** Keeps what a tail read returned (when it is newer than what is kept) for the other followers. */
  #keep(logged: LoggedEvent[]): EventItem[] {
    const added = logged.map(toItem);
    if (added.length > 0 && added.at(-1)!.seq > (this.#tail ?? 0)) {
      this.#items = added;
      this.#tail = added.at(-1)!.seq;
      this.#complete = false; // a page of the log, not known to reach the newest append
    }
    return added;
  }
}
