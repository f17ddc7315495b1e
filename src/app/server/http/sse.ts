import type { FollowItem } from "../runtime/follow-events.js";

const encoder = new TextEncoder();

/** One SSE frame per item: `id:` (the event's seq), `event:` (its type), `data:` (JSON), then a blank line. */
export function sseFrame(item: FollowItem): string {
  switch (item.kind) {
    case "event":
      return `id: ${item.seq}\nevent: ${item.event.type}\ndata: ${JSON.stringify(item.event)}\n\n`;
    case "heartbeat":
      return ": keep-alive\n\n";
    case "gap":
      return `event: gap\ndata: ${JSON.stringify({ firstEventId: item.firstSeq, message: "older events were dropped by the log's retention bound" })}\n\n`;
  }
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
      stream.enqueue(encoder.encode(": connected\n\n"));
    },
    async pull(stream) {
      try {
        items ??= await open(controller.signal);
        const next = await items.next();
        if (next.done) stream.close();
        else stream.enqueue(encoder.encode(sseFrame(next.value)));
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
