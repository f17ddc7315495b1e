import type { AgentEvent } from "../event/types.js";
import { backoffDelay, type RetryPolicy, sleep } from "./backoff.js";
import { ConnectionError, EventsLostError, ServiceError, serviceErrorOf } from "./errors.js";
import { readSseFrames } from "./sse-frames.js";

/** What the stream is doing, for a connection indicator. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export interface EventStreamOptions {
  /**
   * Runs once before the first connection (e.g. the POST that starts a run) and says where the
   * stream starts. It is never retried: a failure ends the iteration with its error.
   */
  begin?: (signal: AbortSignal) => Promise<{ after: number }>;
  /** Opens one connection that resumes after event id `after` (sent as Last-Event-ID). */
  connect: (after: number, signal: AbortSignal) => Promise<Response>;
  /** Deliver events with ids above this (default 0: the whole log). */
  after?: number;
  /** Only events for which this is true are yielded (the others still advance `lastEventId`). */
  filter?: (event: AgentEvent) => boolean;
  /**
   * After an event for which this is true, the stream may be over without a last event (e.g. a
   * sub-agent paused, which pauses the whole run): whenever it then goes quiet for `settleMs`
   * (default 500), `shouldResume` is asked, and false ends it.
   */
  mayHaveEnded?: (event: AgentEvent) => boolean;
  settleMs?: number;
  /** The stream ends after yielding an event for which this is true (default: never; follow forever). */
  isLast?: (event: AgentEvent, eventId: number) => boolean;
  /**
   * Asked when a connection ends or fails before the last event, before reconnecting: false ends
   * the stream (e.g. the run is over and nothing is left to read). A rejection counts as true.
   * Default: always reconnect.
   */
  shouldResume?: (lastEventId: number) => Promise<boolean>;
  retry?: RetryPolicy;
  /** A connection silent (no event, no keep-alive) this long is treated as dead (default 45 s). */
  idleTimeoutMs?: number;
  /** Stops the stream (the iteration ends quietly). */
  signal?: AbortSignal;
  onConnectionChange?: (state: ConnectionState) => void;
}

/**
 * A session's events as an async iterable that reconnects by itself. Each connection resumes with
 * Last-Event-ID = the last id delivered, so the consumer sees every event once, in order: ids at or
 * below `lastEventId` are dropped (no duplicate), and a `gap` frame from the service (its retention
 * bound dropped events) ends the stream with EventsLostError (no silent gap). Network failures,
 * 5xx, 429 and a server that closes the stream early are retried with backoff; other 4xx answers
 * throw ServiceError at once. Iterate it once.
 */
export class EventStream implements AsyncIterable<AgentEvent> {
  readonly #options: EventStreamOptions;
  readonly #stop = new AbortController();
  #lastEventId: number;
  #state: ConnectionState = "connecting";
  #started = false;

  constructor(options: EventStreamOptions) {
    this.#options = options;
    this.#lastEventId = options.after ?? 0;
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  /** The id of the last event delivered (resume from here with `after`). */
  get lastEventId(): number {
    return this.#lastEventId;
  }

  get connectionState(): ConnectionState {
    return this.#state;
  }

  /** Ends the stream: the current connection is cancelled and the iteration ends quietly. */
  close(): void {
    this.#stop.abort();
  }

  /** Reads the stream to its end and returns every event (for scripts and tests). */
  async collect(): Promise<AgentEvent[]> {
    const events: AgentEvent[] = [];
    for await (const event of this) events.push(event);
    return events;
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    if (this.#started) throw new TypeError("an EventStream can be iterated only once");
    this.#started = true;
    return this.#events();
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#options.onConnectionChange?.(state);
  }

  async *#events(): AsyncGenerator<AgentEvent> {
    const { connect, filter, isLast, shouldResume, retry, mayHaveEnded } = this.#options;
    const stop = this.#stop.signal;
    let failures = 0;
    let probing = false;
    let ended = false;
    try {
      if (this.#options.begin) this.#lastEventId = (await this.#options.begin(stop)).after;
      while (!stop.aborted) {
        const connection = new AbortController();
        const abortConnection = () => connection.abort();
        stop.addEventListener("abort", abortConnection, { once: true });
        let idle: ReturnType<typeof setTimeout> | undefined;
        const activity = () => {
          clearTimeout(idle);
          idle = setTimeout(abortConnection, this.#options.idleTimeoutMs ?? 45_000);
        };
        let probe: ReturnType<typeof setTimeout> | undefined;
        const armProbe = () => {
          clearTimeout(probe);
          if (!probing || !shouldResume) return;
          probe = setTimeout(async () => {
            if (await shouldResume(this.#lastEventId).catch(() => true)) armProbe();
            else {
              ended = true;
              abortConnection();
            }
          }, this.#options.settleMs ?? 500);
        };
        let failure: unknown;
        try {
          activity();
          armProbe();
          const response = await connect(this.#lastEventId, connection.signal);
          if (!response.ok) throw await serviceErrorOf(response, "GET events");
          if (!response.body) throw new ConnectionError("the event stream response has no body");
          this.#setState("open");
          failures = 0;
          for await (const frame of readSseFrames(response.body, activity)) {
            if (frame.event === "gap") {
              const info = JSON.parse(frame.data) as { firstEventId: number };
              throw new EventsLostError(info.firstEventId, this.#lastEventId);
            }
            if (frame.id === undefined) continue;
            const id = Number(frame.id);
            if (!(id > this.#lastEventId)) continue;
            const event = JSON.parse(frame.data) as AgentEvent;
            this.#lastEventId = id;
            armProbe();
            if (filter && !filter(event)) continue;
            yield event;
            if (isLast?.(event, id)) return;
            if (!probing && mayHaveEnded?.(event)) {
              probing = true;
              armProbe();
            }
          }
        } catch (error) {
          if (stop.aborted || ended) return;
          if (error instanceof EventsLostError) throw error;
          if (error instanceof ServiceError && !error.retryable) throw error;
          failure = error;
        } finally {
          clearTimeout(idle);
          clearTimeout(probe);
          stop.removeEventListener("abort", abortConnection);
        }
        if (stop.aborted) return;
        this.#setState("reconnecting");
        if (shouldResume && !(await shouldResume(this.#lastEventId).catch(() => true))) return;
        failures += 1;
        if (failures > (retry?.maxAttempts ?? 20))
          throw new ConnectionError(
            `lost the event stream after event ${this.#lastEventId} and ${failures - 1} reconnects failed: ${
              (failure as Error)?.message ?? "the server closed the stream"
            }`,
            { cause: failure },
          );
        await sleep(backoffDelay(failures, retry), stop);
      }
    } finally {
      this.#setState("closed");
    }
  }
}
