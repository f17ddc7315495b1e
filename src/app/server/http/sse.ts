import type { FollowItem } from "../runtime/follow-events.js";

const encoder = new TextEncoder();
const CONNECTED = encoder.encode(": connected\n\n");
const HEARTBEAT = encoder.encode(": keep-alive\n\n");

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
      return ": keep-alive\n\n";
    case "gap":
      return `event: gap\ndata: ${JSON.stringify({ firstEventId: item.firstSeq, message: "older events were dropped by the log's retention bound" })}\n\n`;
  }
}

/**
 * The encoded frames of event items. The followers of one session in this process yield the same
 * item object per event (SessionFeeds), so the frame is serialised and encoded once and its bytes go
 * to every follower (the bytes are never written to, only handed to the socket).
 */
const frames = new WeakMap<FollowItem, Uint8Array>();

function frameBytes(item: FollowItem): Uint8Array {
  if (item.kind === "heartbeat") return HEARTBEAT;
  let bytes = frames.get(item);
  if (!bytes) {
    bytes = encoder.encode(sseFrame(item));
    if (item.kind === "event") frames.set(item, bytes);
  }
  return bytes;
}

/**
 * A `text/event-stream` response fed by `open(signal)`. The signal aborts when the client goes away
 * (which stops only the follower, never the run).
 */
export function sseResponse(
  open: (signal: AbortSignal) => Promise<AsyncGenerator<FollowItem>>,
  requestSignal?: AbortSignal,
): Response {
  const controller = new AbortController();
  requestSignal?.addEventListener("abort", () => controller.abort(), { once: true });
  let items: AsyncGenerator<FollowItem> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      stream.enqueue(CONNECTED);
    },
    async pull(stream) {
      try {
        items ??= await open(controller.signal);
        const next = await items.next();
        if (next.done) stream.close();
        else stream.enqueue(frameBytes(next.value));
      } catch {
        // the follower failed (e.g. the log went away): end the stream; the client reconnects
        stream.close();
      }
    },
    cancel() {
      controller.abort();
      void items?.return(undefined);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
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
