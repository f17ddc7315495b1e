import type { BusMessage, LoggedEvent, ServiceBackend } from "../backend/types.js";

/** The events that end or pause a run (a run logs them with the release of its lease, in one write). */
const ENDS = new Set(["REPLY_END", "REQUIRE_USER_CONFIRM", "REQUIRE_EXTERNAL_EXECUTION"]);

/**
 * How often a waiter looks anyway when the backend's notifications reach every replica (Redis,
 * PostgreSQL): they are best effort, so a lost one costs at most this long. Where they reach only
 * this process (other processes on one SQLite file) the backend's `pollMs` is used instead.
 */
export const SAFETY_CHECK_MS = 30_000;

/** Log events read per page when a notice from another replica is looked into. */
const PAGE = 200;

/**
 * Tells a waiter when a session's run may have ended or paused, from the service's bus: this
 * process's runs mark the notice of their end events (`runEnded`); a notice from another replica
 * (no events carried) makes it read the log's new events and look for an end among them. A slow
 * timer (`pollMs`, else `SAFETY_CHECK_MS`) covers notices that never come. Open it before the
 * waiter's first look (`open`), so an end between that look and `next` is not missed.
 */
export class RunEndWake {
  #cursor: number;
  #woken = false;
  #waiter: (() => void) | undefined;
  #scanning = false;
  #rescan = false;
  #closed = false;
  readonly #unsubscribe: () => void;
  readonly #timer: ReturnType<typeof setInterval>;

  private constructor(
    private readonly backend: ServiceBackend,
    private readonly sessionId: string,
    cursor: number,
    everyMs: number,
  ) {
    this.#cursor = cursor;
    this.#unsubscribe = backend.bus.subscribe(sessionId, this.#onMessage);
    this.#timer = setInterval(() => this.#wake(), everyMs);
    this.#timer.unref?.();
  }

  /**
   * Subscribes to the session's notifications (the log's position read first, so whatever is
   * appended after it is looked at). `everyMs`: the fallback check (default: see the class).
   */
  static async open(backend: ServiceBackend, sessionId: string, everyMs?: number): Promise<RunEndWake> {
    const cursor = await backend.events.lastSeq(sessionId);
    return new RunEndWake(backend, sessionId, cursor, everyMs ?? backend.pollMs ?? SAFETY_CHECK_MS);
  }

  /** Resolves at the next wake-up (at once if one came since the last call), or when closed. */
  next(): Promise<void> {
    if (this.#woken || this.#closed) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    clearInterval(this.#timer);
    this.#wake();
  }

  readonly #onMessage = (message: BusMessage): void => {
    if (message.kind !== "events") return;
    if (message.runEnded) {
      this.#wake();
      return;
    }
    const events = message.events;
    if (events && events.length > 0) {
      // appended in this process: the events are here
      this.#cursor = Math.max(this.#cursor, events.at(-1)!.seq);
      if (events.some(isEnd)) this.#wake();
      return;
    }
    void this.#scan();
  };

  /** Reads what was appended since the cursor (one read at a time) and wakes on an end among it. */
  async #scan(): Promise<void> {
    if (this.#scanning) {
      this.#rescan = true;
      return;
    }
    this.#scanning = true;
    try {
      do {
        this.#rescan = false;
        for (;;) {
          const page = await this.backend.events.read(this.sessionId, this.#cursor, PAGE);
          if (page.length === 0) break;
          this.#cursor = page.at(-1)!.seq;
          if (page.some(isEnd)) this.#wake();
          if (page.length < PAGE) break;
        }
      } while (this.#rescan && !this.#closed);
    } catch {
      this.#wake(); // the log is unreadable now: let the waiter look at the state itself
    } finally {
      this.#scanning = false;
    }
  }

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter();
    } else this.#woken = true;
  }
}

function isEnd(logged: LoggedEvent): boolean {
  return ENDS.has(logged.event.type);
}
