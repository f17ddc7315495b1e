import { RequestError } from "../request-error.js";
import { FollowClock, tickFor } from "./follow-clock.js";

export interface StreamLimits {
  /** Event streams (SSE) one user may hold open on this replica at once (default 64); the next gets 429. */
  maxStreamsPerUser?: number;
  /**
   * A stream whose client has not taken what was written to it for this long (its socket's buffer
   * stays full: no `drain`) is dropped (default 30 s). The client reconnects with Last-Event-ID and
   * loses nothing: the log keeps the events.
   */
  writeTimeoutMs?: number;
  /**
   * Bytes (counted as characters) of frames a stream may have waiting in this process for its
   * client (default 1 MiB): the follower stops filling the socket there, one frame at most beyond,
   * and goes on once it drains.
   */
  maxUnsentBytes?: number;
}

export const DEFAULT_MAX_STREAMS_PER_USER = 64;
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_UNSENT_BYTES = 1024 * 1024;

/** What a 429 for too many streams tells the client to wait, in seconds. */
const RETRY_AFTER_SECONDS = 5;

/** One open stream's place in its user's count, and the limits it keeps. Release it once, when the stream ends. */
export interface StreamSlot {
  readonly writeTimeoutMs: number;
  readonly maxUnsentBytes: number;
  /** One timer for every stalled stream of the runtime (a waiter per stall, none per healthy stream). */
  readonly stalls: FollowClock;
  /** Gives the slot back (again: nothing). */
  release(): void;
}

/** The longest timer Node keeps (about 24.8 days); a longer write timeout would fire at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function positive(
  name: string,
  value: number | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0 && value <= max))
    throw new RangeError(`${name} must be a positive integer of at most ${max} (got ${value})`);
  return value;
}

/**
 * Open event streams per user on this replica. `take` counts one synchronously (a burst cannot
 * overshoot) or throws a `rate_limit` RequestError with a retry delay; every SSE route takes a slot before it
 * answers 200 (before it starts a run, for the run-starting routes), and gives it back when the
 * stream ends, however it ends.
 */
export class StreamSlots {
  readonly maxStreamsPerUser: number;
  readonly writeTimeoutMs: number;
  readonly maxUnsentBytes: number;
  readonly stalls: FollowClock;
  readonly #byUser = new Map<string, number>();

  constructor(limits: StreamLimits = {}) {
    this.maxStreamsPerUser = positive(
      "maxStreamsPerUser",
      limits.maxStreamsPerUser,
      DEFAULT_MAX_STREAMS_PER_USER,
    );
    this.writeTimeoutMs = positive(
      "writeTimeoutMs",
      limits.writeTimeoutMs,
      DEFAULT_WRITE_TIMEOUT_MS,
      MAX_TIMEOUT_MS,
    );
    this.maxUnsentBytes = positive("maxUnsentBytes", limits.maxUnsentBytes, DEFAULT_MAX_UNSENT_BYTES);
    this.stalls = new FollowClock(tickFor(this.writeTimeoutMs));
  }

  /** Streams `user` holds open now. */
  openBy(user: string): number {
    return this.#byUser.get(user) ?? 0;
  }

  take(user: string): StreamSlot {
    const open = this.openBy(user);
    if (open >= this.maxStreamsPerUser)
      throw new RequestError(
        "rate_limit",
        `you already have ${open} event streams open on this server (the per-user limit, server.maxStreamsPerUser); close one or retry later`,
        RETRY_AFTER_SECONDS,
      );
    this.#byUser.set(user, open + 1);
    let released = false;
    return {
      writeTimeoutMs: this.writeTimeoutMs,
      maxUnsentBytes: this.maxUnsentBytes,
      stalls: this.stalls,
      release: () => {
        if (released) return;
        released = true;
        const left = this.openBy(user) - 1;
        if (left <= 0) this.#byUser.delete(user);
        else this.#byUser.set(user, left);
      },
    };
  }
}
