import type { ChatChunk } from "../types.js";

/**
 * Defers building a request until iteration starts, so a missing key or a formatter error surfaces
 * where the caller iterates (like any stream failure), not when `stream()` is called.
 */
export function lazyStream(build: () => AsyncIterable<ChatChunk>): AsyncIterable<ChatChunk> {
  return { [Symbol.asyncIterator]: () => build()[Symbol.asyncIterator]() };
}
