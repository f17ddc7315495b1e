import type { AgentEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

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
 * trip, one frame write per follower) rather than two.
 */
export class EventQueue {
  #pending: AgentEvent[] = [];
  #flushing: Promise<void> | undefined;
  #failure: unknown;

  constructor(
    private readonly backend: ServiceBackend,
    private readonly sessionId: string,
  ) {}

  push(event: AgentEvent): void {
    this.#pending.push(event);
    this.#flushing ??= this.#drain();
  }

  /** Resolves when everything pushed so far is in the log; rejects if an append failed. */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #drain(): Promise<void> {
    await tickSettled();
    try {
      while (this.#pending.length > 0 && this.#failure === undefined) {
        const batch = this.#pending;
        this.#pending = [];
        const events = await this.backend.events.append(this.sessionId, batch);
        // The logged events ride along, so this process's followers need not read them back.
        await this.backend.bus.publish({ sessionId: this.sessionId, kind: "events", events });
      }
    } catch (error) {
      this.#failure = new Error(
        `cannot append to the event log of session "${this.sessionId}": ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    } finally {
      this.#flushing = undefined;
    }
  }
}
