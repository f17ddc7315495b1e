import type { ChatChunk, ChatDelta, ChatFinal } from "../../../src/model/types.js";

/** Drains a model stream into its deltas and its final chunk (fails when there is no final chunk). */
export async function collect(
  stream: AsyncIterable<ChatChunk>,
): Promise<{ deltas: ChatDelta[]; final: ChatFinal }> {
  const deltas: ChatDelta[] = [];
  let final: ChatFinal | undefined;
  for await (const chunk of stream) {
    if (chunk.type === "final") final = chunk;
    else deltas.push(chunk);
  }
  if (final === undefined) throw new Error("the stream ended without a final chunk");
  return { deltas, final };
}

/** Runs a stream expecting it to fail; returns the error and what came before. */
export async function collectError(
  stream: AsyncIterable<ChatChunk>,
): Promise<{ chunks: ChatChunk[]; error: unknown }> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  throw new Error("expected the stream to fail");
}
