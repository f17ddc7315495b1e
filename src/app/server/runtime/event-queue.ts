import type { AgentEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

/**
 * Appends a run's events to the log in order, batching whatever arrived while the previous append
 * was in flight, and tells followers on the bus. The agent loop never waits for an append, except
 * through `flush` (before each checkpoint, so the log is never behind the saved state).
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
