import { z } from "zod";
import { type Msg, parseJsonOrThrow, parseWith } from "../../message/index.js";
import { type AgentState, parseAgentState } from "../agent-state.js";
import { CheckpointUnavailableError } from "./checkpoint-errors.js";
import { type CheckpointBlob, type CheckpointStore, getBlob } from "./checkpoint-store.js";
import { HASH, jsonBlob } from "./content-hash.js";

/**
 * A piece of a conversation: the hashes of its messages after those of `prev` (a chain, so a hundred
 * checkpoints of a growing conversation share its beginning). `depth` counts the links before it; a
 * chain is started afresh past MAX_DEPTH so a restore reads a bounded number of pieces.
 */
interface ContextChunk {
  prev?: string;
  depth: number;
  messages: string[];
}

const MAX_DEPTH = 16;

const ChunkSchema = z.object({
  prev: z.string().regex(HASH).optional(),
  depth: z.number().int().min(0),
  messages: z.array(z.string().regex(HASH)),
});

/** The conversation last stored by this process, so the next one chains onto it. */
export interface StoredContext {
  blob: string;
  depth: number;
  hashes: string[];
}

/** Splits a state into blobs: each message, the conversation's chain piece, and the rest of the state. */
export function stateBlobs(
  state: AgentState,
  previous: StoredContext | undefined,
): { blobs: CheckpointBlob[]; stateBlob: string; context: StoredContext } {
  const { context, ...rest } = state;
  const messages = context.map((msg) => jsonBlob(msg));
  const hashes = messages.map((blob) => blob.hash);
  const extends_ =
    previous !== undefined &&
    previous.depth < MAX_DEPTH &&
    previous.hashes.length <= hashes.length &&
    previous.hashes.every((hash, i) => hashes[i] === hash);
  const chunk: ContextChunk = extends_
    ? { prev: previous.blob, depth: previous.depth + 1, messages: hashes.slice(previous.hashes.length) }
    : { depth: 0, messages: hashes };
  const chunkBlob = jsonBlob(chunk);
  const restBlob = jsonBlob(rest);
  return {
    blobs: [...messages, chunkBlob, restBlob],
    stateBlob: restBlob.hash,
    context: { blob: chunkBlob.hash, depth: chunk.depth, hashes },
  };
}

async function blobJson(
  store: CheckpointStore,
  sessionId: string,
  hash: string,
  what: string,
): Promise<unknown> {
  const bytes = await getBlob(store, sessionId, hash);
  if (!bytes) throw new CheckpointUnavailableError(`its ${what} ${hash.slice(0, 12)} is no longer stored`);
  return parseJsonOrThrow(Buffer.from(bytes).toString("utf8"), `${what} ${hash.slice(0, 12)}`);
}

/** The hashes a conversation's chain names, oldest message first, and the chain pieces themselves. */
export async function contextHashes(
  store: CheckpointStore,
  sessionId: string,
  blob: string,
): Promise<{ hashes: string[]; chunks: string[] }> {
  const parts: string[][] = [];
  const chunks: string[] = [];
  for (let next: string | undefined = blob; next !== undefined; ) {
    chunks.push(next);
    const chunk: ContextChunk = parseWith(
      ChunkSchema,
      await blobJson(store, sessionId, next, "conversation"),
      "conversation",
    );
    parts.unshift(chunk.messages);
    next = chunk.prev;
  }
  return { hashes: parts.flat(), chunks };
}

/** The state a checkpoint holds, validated as a stored state is, under `sessionId`. */
export async function loadCheckpointState(
  store: CheckpointStore,
  sessionId: string,
  refs: { stateBlob: string; contextBlob: string },
): Promise<AgentState> {
  const rest = await blobJson(store, sessionId, refs.stateBlob, "state");
  const { hashes } = await contextHashes(store, sessionId, refs.contextBlob);
  const found = await store.getBlobs(sessionId, [...new Set(hashes)]);
  const context = hashes.map((hash) => {
    const bytes = found.get(hash);
    if (!bytes) throw new CheckpointUnavailableError(`its message ${hash.slice(0, 12)} is no longer stored`);
    return parseJsonOrThrow(Buffer.from(bytes).toString("utf8"), `message ${hash.slice(0, 12)}`) as Msg;
  });
  return parseAgentState({ ...(rest as object), context, sessionId });
}
