import type { ServerResponse } from "node:http";
import { followerItems } from "../runtime/follow-events.js";
import { Follower, type FollowItem, type FollowSink, type StopSignal } from "../runtime/follower.js";
import { RUN_END_EVENTS } from "../runtime/run-end-events.js";
import type { StreamSlot } from "../runtime/stream-slots.js";
import { withDirectBody } from "./direct-body.js";
import { watchPeer } from "./peer-watch.js";
import { dropConnection, StallWatch } from "./stall-watch.js";

const encoder = new TextEncoder();
const CONNECTED = ": connected\n\n";
const HEARTBEAT = ": keep-alive\n\n";

/** Any CR or LF: a line break inside a field would end it and start a forged one. */
const LINE_BREAK = /[\r\n]/;
/** Event types are upper-case words joined by underscores; a stored log could hold anything. */
const EVENT_NAME = /^[A-Za-z_]+$/;

/**
 * One SSE frame per item: `id:` (the event's seq), `event:` (its type), `data:` (JSON), then a blank
 * line. The log's JSON text is sent as is only when it is one line (a row edited to pretty-printed
 * JSON is re-serialised), and a type that is not a plain name is sent as `message`, so stored data
 * can never forge a frame.
 */
export function sseFrame(item: FollowItem): string {
  switch (item.kind) {
    case "event": {
      const json =
        item.json !== undefined && !LINE_BREAK.test(item.json) ? item.json : JSON.stringify(item.event);
      const name = EVENT_NAME.test(item.event.type) ? item.event.type : "message";
      return `id: ${item.seq}\nevent: ${name}\ndata: ${json}\n\n`;
    }
    case "heartbeat":
      return HEARTBEAT;
    case "gap":
      return `event: gap\ndata: ${JSON.stringify({ firstEventId: item.firstSeq, message: "older events were dropped by the log's retention bound" })}\n\n`;
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

/** What an SSE stream follows: a Follower (delivered into the socket by callbacks) or any item generator. */
export type SseSource = Follower | AsyncGenerator<FollowItem>;

type OpenFollower = (signal: StopSignal) => Promise<SseSource>;

/** A stop signal with one listener (the follower's): no EventTarget, no AbortController, per stream. */
class StopLatch implements StopSignal {
  aborted = false;
  #listener: (() => void) | undefined;

  addEventListener(_type: "abort", listener: () => void): void {
    this.#listener = listener;
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  stop(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#listener?.();
  }
}

/**
 * One stream's follower, opened by whichever body is read first (the `ReadableStream` or the direct
 * writer; only one ever is). `stop` ends it when the client goes away (never the run).
 */
class SseFollower {
  readonly #latch = new StopLatch();
  readonly #open: OpenFollower;
  #source: Promise<SseSource> | undefined;
  #items: AsyncGenerator<FollowItem> | undefined;
  #finished = false;

  constructor(open: OpenFollower) {
    this.#open = open;
  }

  source(): Promise<SseSource> {
    this.#source ??= this.#open(this.#latch);
    return this.#source;
  }

  async items(): Promise<AsyncGenerator<FollowItem>> {
    if (this.#items) return this.#items;
    const source = await this.source();
    this.#items = source instanceof Follower ? followerItems(source) : source;
    return this.#items;
  }

  /** The follower has ended by itself: a later `stop` (the response closing) has nothing to do. */
  finished(): void {
    this.#finished = true;
  }

  stop(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#latch.stop();
    void this.#items?.return(undefined);
  }
}

/** Resolves once `out` can take more (or is gone). */
function drained(out: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
  });
}

/**
 * How long a run's last frame may wait for the end of its stream, when that end does not come in the
 * same delivery (it does for the run's own stream in this process: its end events are told once the
 * session is free, and end it).
 */
const LAST_FRAME_HOLD_MS = 50;

/**
 * A Follower's frames written straight to Node's response: pushed as the follower delivers them,
 * pausing while the socket's buffer is full. No promise or generator per stream between events.
 * The frames of one batch go out in one write (`flush`): a reply's last delta comes with the events that
 * end it, and a write's cost grows with its pieces (each write of a chunked response is three).
 *
 * On a stream that ends with its run, the run's last event (REPLY_END, REQUIRE_*) goes into the
 * corked socket, and the stream's end uncorks it, so the frame and the response's end go out in one
 * write, not two: at thousands of replies ending per second, that write is a large part of what the
 * service spends. The end normally comes in the same delivery; if it does not, a timer sends the
 * frames after LAST_FRAME_HOLD_MS (a timer only then, not one per reply).
 *
 * The socket is corked, not the response: from Node 22 a corked response keeps its chunks in a buffer
 * of its own, and `end()` writes the terminating chunk before them (the client sees the body end
 * without its last frame). The socket's cork holds the framed chunks in order on every Node version.
 */
class SocketSink implements FollowSink {
  #corked = false;
  #held: NodeJS.Timeout | undefined;
  /** The frames of the batch being delivered, not yet written. */
  #frames = "";
  /** The last push asked the follower to wait. */
  #paused = false;

  constructor(
    private readonly stream: SseFollower,
    private readonly out: ServerResponse,
    private readonly source: Follower,
    private readonly maxUnsentBytes: number,
    private readonly stall: StallWatch | undefined,
  ) {}

  push(item: FollowItem): boolean {
    if (
      this.source.endsWithRun &&
      !this.#corked &&
      item.kind === "event" &&
      RUN_END_EVENTS.has(item.event.type)
    ) {
      this.#corked = true;
      this.out.socket?.cork();
    }
    this.#frames += sseFrame(item);
    // Wait for the socket, or once the batch's frames and what the socket still holds reach the bound.
    this.#paused =
      this.out.writableNeedDrain || this.out.writableLength + this.#frames.length >= this.maxUnsentBytes;
    return !this.#paused;
  }

  flush(): void {
    // The follower waits now, with the last frame corked: its stream's end did not come with it.
    if (this.#corked && this.#held === undefined) this.#held = setTimeout(this.#release, LAST_FRAME_HOLD_MS);
    this.#write();
    if (!this.#paused) return;
    // Paused: a full socket resumes the follower on "drain" (and is dropped if none comes in time);
    // one the kernel took at once has nothing to drain, so the follower goes on by itself.
    if (this.out.writableNeedDrain) this.stall?.arm();
    else queueMicrotask(this.#resume);
  }

  readonly #resume = (): void => {
    this.#paused = false;
    this.source.resume();
  };

  #write(): void {
    if (this.#frames === "") return;
    const frames = this.#frames;
    this.#frames = "";
    this.out.write(frames);
  }

  readonly #release = (): void => {
    this.out.socket?.uncork();
  };

  end(): void {
    clearTimeout(this.#held); // ending the response writes what the cork holds
    this.#write();
    // the follower ended by itself, or failed (e.g. the log went away): end the stream; the client reconnects
    this.stream.finished();
    this.out.end();
    // what is left must reach the client within the write timeout too
    if (this.out.writableLength > 0) this.stall?.arm();
  }
}

/**
 * The direct body: each frame written to Node's response as the follower delivers it. With a slot,
 * the stream keeps its limits (see StreamSlot: bytes waiting, the write timeout) and gives the slot
 * back when the response closes.
 */
async function writeFrames(
  stream: SseFollower,
  out: ServerResponse,
  slot: StreamSlot | undefined,
): Promise<void> {
  const stall = slot ? new StallWatch(out, slot) : undefined;
  const unwatch = slot ? watchPeer(slot, out.socket, () => dropConnection(out.socket)) : undefined;
  out.once("close", () => {
    unwatch?.();
    stall?.disarm();
    slot?.release();
    stream.stop();
  });
  out.write(CONNECTED);
  try {
    const source = await stream.source();
    if (source instanceof Follower) {
      out.on("drain", () => {
        stall?.disarm();
        source.resume();
      });
      source.start(new SocketSink(stream, out, source, slot?.maxUnsentBytes ?? Infinity, stall));
      return;
    }
    const items = await stream.items();
    for (;;) {
      const next = await items.next();
      if (next.done || out.destroyed) break;
      if (!out.write(sseFrame(next.value))) {
        stall?.arm();
        await drained(out);
        stall?.disarm();
      }
    }
  } catch {
    // the follower failed (e.g. the log went away): end the stream; the client reconnects
  }
  stream.finished();
  out.end();
  if (out.writableLength > 0) stall?.arm();
}

/**
 * A `text/event-stream` response fed by `open(signal)`. The signal aborts when the client goes away
 * (which stops only the follower, never the run). `request` is the request's signal, or the request
 * itself (its signal is read only off Node, where the adapter's body reader does not see the client
 * leave; on Node the response's `close` does). Served through `sendBodiesDirectly` on Node, the frames
 * go straight to the socket; elsewhere through the `ReadableStream` body (pulled: nothing waits in
 * the process for a client that does not read). `slot` (from `runtime.streams.take(user)`) is given
 * back when the stream ends, and on Node bounds the bytes waiting for the client and drops a client
 * that takes nothing for the slot's write timeout.
 */
export function sseResponse(
  open: OpenFollower,
  request?: AbortSignal | Request,
  slot?: StreamSlot,
): Response {
  const follower = new SseFollower(open);
  let listening = false;
  const close = (stream: ReadableStreamDefaultController<Uint8Array>) => {
    slot?.release();
    stream.close();
  };
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      stream.enqueue(encoder.encode(CONNECTED));
    },
    async pull(stream) {
      if (!listening) {
        listening = true; // here, not in start: reading a lightweight request's signal builds the whole request
        const signal = request instanceof AbortSignal ? request : request?.signal;
        signal?.addEventListener("abort", () => follower.stop(), { once: true });
      }
      try {
        const next = await (await follower.items()).next();
        if (next.done) close(stream);
        else stream.enqueue(encoder.encode(sseFrame(next.value)));
      } catch {
        close(stream); // as in writeFrames
      }
    },
    cancel() {
      slot?.release();
      follower.stop();
    },
  });
  return withDirectBody(new Response(body, { headers: SSE_HEADERS }), (out) => {
    void writeFrames(follower, out, slot);
  });
}

/**
 * Where a reconnecting client resumes: `Last-Event-ID`, else `?after=`, else `fallback`. Only plain
 * decimal ids count (`1e3`, `0x10`, ` 3` are undefined: the caller answers 400).
 */
export function resumePoint(
  lastEventId: string | undefined,
  after: string | undefined,
  fallback: number,
): number | undefined {
  const raw = lastEventId ?? after;
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,15}$/.test(raw)) return undefined;
  return Number(raw);
}
