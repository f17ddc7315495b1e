import { type BatchedChatStream, type ChatChunk, isBatchedStream } from "../types.js";

/**
 * Defers building a request until iteration starts, so a missing key or a formatter error surfaces
 * where the caller iterates (like any stream failure), not when `stream()` is called. Keeps the
 * transport's `batches()` (one await per network read) available to the agent.
 */
export function lazyStream(build: () => AsyncIterable<ChatChunk>): BatchedChatStream {
  return {
    [Symbol.asyncIterator]: () => build()[Symbol.asyncIterator](),
    batches: () => ({
      [Symbol.asyncIterator]: () => {
        const inner = build();
        return (isBatchedStream(inner) ? inner.batches() : oneByOne(inner))[Symbol.asyncIterator]();
      },
    }),
  };
}

async function* oneByOne(stream: AsyncIterable<ChatChunk>): AsyncGenerator<readonly ChatChunk[]> {
  for await (const chunk of stream) yield [chunk];
}
