import type { ServiceBackend } from "../backend/types.js";
import { FollowClock, tickFor } from "./follow-clock.js";
import { Follower, type FollowOptions } from "./follower.js";
import type { RecoveryOutcome } from "./recover-session.js";
import type { FollowSessionOptions, ServiceRuntimeOptions } from "./service-runtime-options.js";
import { SessionFeeds } from "./session-feed.js";

/**
 * The followers of one replica: they share reads and event items per session (the feeds) and one
 * timer (the clock) for heartbeats, polls and liveness checks.
 */
export class ReplicaFollowers {
  readonly #backend: ServiceBackend;
  readonly #heartbeatMs: number;
  readonly #recoverCheckMs: number;
  readonly #feeds: SessionFeeds;
  readonly #clock: FollowClock;

  constructor(
    backend: ServiceBackend,
    options: Pick<ServiceRuntimeOptions, "heartbeatMs" | "recoverCheckMs">,
  ) {
    this.#backend = backend;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    this.#recoverCheckMs = options.recoverCheckMs ?? 5_000;
    this.#feeds = new SessionFeeds(backend);
    this.#clock = new FollowClock(tickFor(this.#heartbeatMs, this.#recoverCheckMs, backend.pollMs));
  }

  /**
   * A follower of the session, not yet started (the caller checked who may follow). `ownRun`: the
   * follower follows (`until`) a run of this replica; otherwise it checks the run is alive with
   * `recover` every `recoverCheckMs`.
   */
  open(
    sessionId: string,
    options: FollowSessionOptions,
    ownRun: boolean,
    recover: () => Promise<RecoveryOutcome>,
  ): Follower {
    const follow: FollowOptions = {
      after: options.after ?? 0,
      signal: options.signal,
      heartbeatMs: this.#heartbeatMs,
      feeds: this.#feeds,
      clock: this.#clock,
    };
    if (options.until) follow.until = options.until;
    if (options.until && ownRun) {
      // A follower of this replica's own run hears every append on the in-process bus (no polling),
      // and the run's end ends it (no liveness checks: the run cannot die elsewhere).
      follow.pollMs = Number.POSITIVE_INFINITY;
    } else {
      follow.watch = { everyMs: this.#recoverCheckMs, check: recover };
    }
    return new Follower(this.#backend, sessionId, follow);
  }

  /** Drops what the feeds keep of a deleted session. */
  forget(sessionId: string): void {
    this.#feeds.forget(sessionId);
  }
}
