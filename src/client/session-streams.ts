import type { RetryPolicy } from "./backoff.js";
import { EventStream } from "./event-stream.js";
import { endsRun, isSubagentPause, RunStream, type StreamOptions } from "./run-stream.js";
import { type ClientTransport, requestKey } from "./transport.js";
import type { RunStarted, SessionStatus } from "./types.js";

export const sessionPath = (sessionId: string) => `/v1/sessions/${encodeURIComponent(sessionId)}`;

/**
 * The client's event streams of a session: a run it starts, a run under way, the whole log. Each
 * reconnects with Last-Event-ID and, after a drop, asks the session's status whether the run goes on.
 */
export class SessionStreams {
  readonly #http: ClientTransport;
  readonly #retry: RetryPolicy | undefined;
  readonly #idleTimeoutMs: number | undefined;
  readonly #status: (sessionId: string) => Promise<SessionStatus>;

  constructor(
    http: ClientTransport,
    options: { retry?: RetryPolicy | undefined; idleTimeoutMs?: number | undefined },
    status: (sessionId: string) => Promise<SessionStatus>,
  ) {
    this.#http = http;
    this.#retry = options.retry;
    this.#idleTimeoutMs = options.idleTimeoutMs;
    this.#status = status;
  }

  /** The session's event log after `after`, until closed. */
  events(sessionId: string, options: StreamOptions & { after?: number }): EventStream {
    return new EventStream({
      ...this.#options(options),
      after: options.after ?? 0,
      connect: (after, signal) => this.#openEvents(sessionId, after, signal),
    });
  }

  /** A run under way, from `run.after` to its REPLY_END or pause (that reply's events only). */
  followRun(
    sessionId: string,
    run: { replyId: string; after: number; running?: number },
    options: StreamOptions,
  ): RunStream {
    const stream: RunStream = new RunStream({
      ...this.#options(options),
      after: run.after,
      connect: (after, signal) => this.#openEvents(sessionId, after, signal),
      filter: (event) => event.replyId === run.replyId || event.source?.includes("/") === true,
      isLast: (event, id) => id > (run.running ?? 0) && endsRun(event, run.replyId),
      shouldResume: (after) => this.#runGoesOn(sessionId, after),
      mayHaveEnded: isSubagentPause,
    });
    stream.setReplyId(run.replyId);
    return stream;
  }

  #options(options: StreamOptions) {
    const out: Partial<ConstructorParameters<typeof EventStream>[0]> = {};
    if (this.#retry) out.retry = this.#retry;
    if (this.#idleTimeoutMs !== undefined) out.idleTimeoutMs = this.#idleTimeoutMs;
    if (options.signal) out.signal = options.signal;
    if (options.onConnectionChange) out.onConnectionChange = options.onConnectionChange;
    return out;
  }

  /** The stream of a run the client starts: POST `<session>/<action>`, then its events. */
  run(sessionId: string, action: string, body: unknown, options: StreamOptions): RunStream {
    // One key per write, sent on every try of it: a retry after a lost answer starts nothing new.
    const key = requestKey();
    const stream: RunStream = new RunStream({
      ...this.#options(options),
      begin: async (signal) => {
        const run = await this.#http.request<RunStarted>(
          "POST",
          `${sessionPath(sessionId)}/${action}`,
          body,
          signal,
          key,
        );
        stream.setReplyId(run.replyId);
        return run;
      },
      connect: (after, signal) => this.#openEvents(sessionId, after, signal),
      isLast: (event) => endsRun(event),
      shouldResume: (after) => this.#runGoesOn(sessionId, after),
      mayHaveEnded: isSubagentPause,
    });
    return stream;
  }

  /** After a drop: reconnect unless the run is over and its last event was already delivered. */
  async #runGoesOn(sessionId: string, after: number): Promise<boolean> {
    const status = await this.#status(sessionId);
    return status.running || status.lastEventId > after;
  }

  #openEvents(sessionId: string, after: number, signal: AbortSignal): Promise<Response> {
    return this.#http.fetch(`${this.#http.baseUrl}${sessionPath(sessionId)}/events`, {
      headers: { accept: "text/event-stream", "last-event-id": String(after), ...this.#http.auth() },
      signal,
    });
  }
}
