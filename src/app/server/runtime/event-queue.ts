import type { AgentEvent } from "../../../event/index.js";
import { type FencedError, isFenced } from "../backend/fenced-error.js";
import type {
  LoggedEvent,
  RunCheckpoint,
  RunEnd,
  RunEndResult,
  RunLease,
  ServiceBackend,
} from "../backend/types.js";

/** A run's fence: its lease (every write carries it) and what to do once the store refuses one. */
export interface QueueFence {
  lease: RunLease;
  /** Called once, with the first refusal: the run must stop (no further writes or tool calls). */
  onFenced(error: FencedError): void;
}

/**
 * Resolves once the current microtask queue is empty (Node runs its nextTick queue after each drain
 * of the microtasks): whatever a run pushes in the same tick, over any number of awaits that settle
 * at once, is then in the batch.
 */
const tickSettled = (): Promise<void> =>
  new Promise((resolve) =>
    typeof process !== "undefined" && typeof process.nextTick === "function"
      ? process.nextTick(resolve)
      : setTimeout(resolve, 0),
  );

/**
 * Appends a run's events to the log in order, batching whatever arrived while the previous append
 * was in flight, and tells followers on the bus. The agent loop never waits for an append, except
 * through `flush` (before each checkpoint, so the log is never behind the saved state).
 *
 * An append starts once the tick that pushed its first event has settled: the last delta of a reply
 * and the events that end its model call arrive in one tick, and go out as one append (one store round
 * trip, one frame write per follower) rather than two. `checkpoint` and `end` do the same for a save:
 * what is still pending goes with it (and, at the end, with the end events and the lease's release).
 *
 * With a `fence` every write carries the run's lease, and the store refuses it atomically once the
 * lease no longer holds the session. After the first refusal the queue writes nothing more: pushed
 * events are dropped, `flush` and `checkpoint` reject with the FencedError, and `end` neither logs nor
 * releases (the lease is not this run's to free any more).
 */
export class EventQueue {
  readonly #pending: AgentEvent[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  /**
   * Set by `end` (for good) and `checkpoint` (while it runs): a drain still waiting for its tick leaves
   * the pending events to them.
   */
  #holding = false;
  /** The store's refusal of a write under the run's lease: nothing more is written. */
  #fenced: FencedError | undefined;

  constructor(
    private readonly backend: ServiceBackend,
    private readonly sessionId: string,
    private readonly fence?: QueueFence,
  ) {}

  /** Whether the store has refused a write of this run (see `QueueFence`). */
  get fenced(): boolean {
    return this.#fenced !== undefined;
  }

  push(event: AgentEvent): void {
    if (this.#fenced) return;
    this.#pending.push(event);
    this.#flushing ??= this.#drain();
  }

  /** Resolves when everything pushed so far is in the log; rejects if an append failed. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#fenced) throw this.#fenced;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Records a refusal (once, telling the run) and answers the error to throw. */
  #refused(error: unknown): unknown {
    if (!isFenced(error)) return error;
    if (!this.#fenced) {
      this.#fenced = error;
      this.#pending.length = 0;
      this.fence?.onFenced(error);
    }
    return this.#fenced;
  }

  /**
   * Ends the run (`RunEnd`): the events still pending, the final save, the end events, the release of
   * the lease. In one round trip where the backend has `endRun`, so followers hear of the last events
   * and the end events together; else step by step. The end events are told once the session is
   * free, marked `runEnded`, so a follower that ends with the run writes them and its end at once.
   * After an append failed, only the lease is released (the log is behind: the state is not saved
   * past it). Rejects if the log or the store fails.
   */
  async end(end: Omit<RunEnd, "sessionId" | "events">): Promise<RunEndResult> {
    this.#holding = true;
    try {
      await this.flush();
      const run: RunEnd = { sessionId: this.sessionId, events: this.#take(), ...end };
      if (!this.backend.endRun) return await this.#endInSteps(run);
      const result = await this.backend.endRun(run); // the lease is released with the rest
      await this.#publish(result.logged, true);
      return result;
    } catch (error) {
      throw this.#refused(error);
    } finally {
      // a no-op once endRun released it; a fenced run's lease is not its own to free any more
      if (!this.#fenced) await end.lease.release().catch(() => {});
    }
  }

  /**
   * The pending events, as a new array; the pending array itself stays. A fresh pending array would
   * wait for the run's next event (seconds, for a paced model), long enough to be promoted to the old
   * generation, and once dead there it would keep the next batch alive through every scavenge.
   */
  #take(): AgentEvent[] {
    const batch = this.#pending.slice();
    this.#pending.length = 0;
    return batch;
  }

  /**
   * A checkpoint: the pending events, then the state saved (compare-and-set), in one round trip where
   * the backend has `checkpoint`; else the log is flushed, then the state saved. Resolves with the new
   * version; rejects if the log or the save fails (the events are logged all the same).
   */
  async checkpoint(save: RunCheckpoint["save"]): Promise<number> {
    const { backend, sessionId } = this;
    if (!backend.checkpoint) {
      await this.flush();
      return (await backend.store.save(sessionId, save.state, { expectedVersion: save.expectedVersion }))
        .version;
    }
    this.#holding = true;
    try {
      await this.flush();
      const lease = this.fence?.lease;
      const result = await backend.checkpoint({
        sessionId,
        events: this.#take(),
        save,
        ...(lease ? { lease } : {}),
      });
      await this.#publish(result.logged);
      if (result.saveError) throw result.saveError;
      return result.version!;
    } catch (error) {
      throw this.#refused(error);
    } finally {
      this.#holding = false;
      // anything pushed meanwhile (its drain let it be) goes out now
      if (this.#pending.length > 0) this.#flushing ??= this.#drain();
    }
  }

  /**
   * `end` on a backend without `endRun`: each step waits for the one before, and followers hear of the
   * last events and the end events in one message, as with `endRun` (one delivery, one write per
   * stream, not two). If logging the end events fails, the events logged before them are told first.
   */
  async #endInSteps(run: RunEnd): Promise<RunEndResult> {
    const logged = await this.#log(run.events);
    const result: RunEndResult = { logged };
    if (run.save) {
      const { state, expectedVersion } = run.save;
      try {
        result.version = (await this.backend.store.save(this.sessionId, state, { expectedVersion })).version;
      } catch (error) {
        result.saveError = error as Error;
      }
    }
    let ended: LoggedEvent[];
    try {
      ended = await this.#log(run.endEvents);
    } catch (error) {
      await this.#publish(logged);
      throw error;
    }
    // Freed before its end events are told, as `endRun` does: a client that sees them can start the
    // session's next run at once.
    await run.lease.release().catch(() => {});
    result.logged = logged.length === 0 ? ended : [...logged, ...ended];
    await this.#publish(result.logged, true);
    return result;
  }

  /** Logs the events (none: no round trip). */
  async #log(events: AgentEvent[]): Promise<LoggedEvent[]> {
    if (events.length === 0) return [];
    const lease = this.fence?.lease;
    return lease
      ? this.backend.events.append(this.sessionId, events, lease)
      : this.backend.events.append(this.sessionId, events);
  }

  /** Logs the events and tells followers. */
  async #append(events: AgentEvent[]): Promise<LoggedEvent[]> {
    const logged = await this.#log(events);
    await this.#publish(logged);
    return logged;
  }

  /**
   * The logged events ride along, so this process's followers need not read them back. `runEnded`:
   * they are the run's end events, and the session is free (see BusMessage).
   */
  async #publish(events: LoggedEvent[], runEnded = false): Promise<void> {
    if (events.length === 0) return;
    await this.backend.bus.publish(
      runEnded
        ? { sessionId: this.sessionId, kind: "events", events, runEnded }
        : { sessionId: this.sessionId, kind: "events", events },
    );
  }

  async #drain(): Promise<void> {
    await tickSettled();
    try {
      while (this.#pending.length > 0 && this.#failure === undefined && !this.#holding) {
        await this.#append(this.#take());
      }
    } catch (error) {
      if (isFenced(this.#refused(error))) return;
      this.#failure = new Error(
        `cannot append to the event log of session "${this.sessionId}": ${(error as Error).message}`,
        { cause: error },
      );
    } finally {
      this.#flushing = undefined;
    }
  }
}
