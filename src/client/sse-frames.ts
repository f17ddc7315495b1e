import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One SSE frame of the service's event stream: `id` (the event's per-session seq), `event`, `data`. */
export type SseFrame = EventSourceMessage;

/**
 * Reads the frames of an SSE response body. Every chunk (frames and `: keep-alive` comments alike)
 * calls `onActivity`, so a caller can tell a quiet stream from a dead connection. Cancels the body
 * when the consumer stops early.
 */
export async function* readSseFrames(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void,
): AsyncGenerator<SseFrame> {
  const queue: SseFrame[] = [];
  const parser = createParser({ onEvent: (frame) => queue.push(frame) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift() as SseFrame;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
