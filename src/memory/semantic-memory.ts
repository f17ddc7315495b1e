import { type Msg, newId, nowIso } from "../message/index.js";
import type { ChatModel, EmbeddingModel } from "../model/index.js";
import type { Chunk, ChunkRecord, MetadataFilter, VectorStore } from "../rag/index.js";
import { extractMemoryOperations, type MemoryOperation } from "./extraction.js";
import { assertScope, matchesFilter } from "./scope.js";
import type {
  ListOptions,
  LongTermMemory,
  MemoryFilter,
  MemoryKind,
  MemoryRecord,
  MemoryScope,
  RecordOptions,
  RecordResult,
  RetrieveOptions,
  ScoredMemory,
} from "./types.js";

export interface SemanticMemoryOptions {
  /** Extracts and reconciles memories after each exchange (a small, cheap model does well). */
  model: ChatModel;
  embedding: EmbeddingModel;
  /** Where memories live: one document per memory, scoped by `userId` / `agentId` metadata. */
  store: VectorStore;
  /** Collection name (default `memories`); created on first use with the embedding's dimensions. */
  collection?: string;
  /** Known memories shown to the extractor for reconciliation (default 20, the most related). */
  reconcileWith?: number;
}

/** `agentId` of memories shared by all of a user's agents (stores match missing keys only with $ne). */
const SHARED = "";

/**
 * Long-term semantic memory on a rag VectorStore (Mem0-style): `record` asks the model which
 * durable facts and preferences an exchange adds, updates or deletes against the related known
 * memories, then embeds and stores them. Reconciling guards the model's answer: it may only update
 * or delete memories it was shown (so never another user's), and an add that repeats a known
 * memory is dropped. Every read and write carries the scope as a metadata filter.
 */
export class SemanticMemory implements LongTermMemory {
  readonly #model: ChatModel;
  readonly #embedding: EmbeddingModel;
  readonly #store: VectorStore;
  readonly #collection: string;
  readonly #reconcileWith: number;
  #ready: Promise<void> | undefined;

  constructor(options: SemanticMemoryOptions) {
    this.#model = options.model;
    this.#embedding = options.embedding;
    this.#store = options.store;
    this.#collection = options.collection ?? "memories";
    this.#reconcileWith = options.reconcileWith ?? 20;
  }

  async record(msgs: Msg[], scope: MemoryScope, options: RecordOptions = {}): Promise<RecordResult> {
    assertScope(scope);
    await this.#ensureCollection();
    const query = msgs
      .filter((msg) => msg.role === "user")
      .map((msg) => msg.content.map((b) => (b.type === "text" ? b.text : "")).join("\n"))
      .join("\n");
    const related = await this.retrieve(query, scope, { topK: this.#reconcileWith, signal: options.signal });
    const extracted = await extractMemoryOperations(this.#model, msgs, related, options.signal);
    const result: RecordResult = {
      added: [],
      updated: [],
      deleted: [],
      usage: extracted.usage,
      embeddingTokens: 0,
    };
    const known = new Map<string, MemoryRecord>(
      related.map(({ score: _score, ...memory }) => [memory.id, memory]),
    );
    const now = nowIso();
    const changed = this.#reconcile(extracted.operations, known, scope, options, now, result);
    if (changed.length > 0) {
      const embedded = await this.#embedding.embed(
        changed.map((memory) => memory.text),
        options.signal ? { signal: options.signal } : {},
      );
      result.embeddingTokens = embedded.usage.inputTokens;
      for (const [i, memory] of changed.entries()) {
        await this.#store.replaceDocument(this.#collection, memory.id, [
          toRecord(memory, embedded.vectors[i]!),
        ]);
      }
    }
    for (const id of result.deleted)
      await this.#store.deleteDocument(this.#collection, id, readFilter(scope));
    return result;
  }

  /** Applies the model's operations to `known`; returns the memories to (re)embed and store. */
  #reconcile(
    operations: MemoryOperation[],
    known: Map<string, MemoryRecord>,
    scope: MemoryScope,
    options: RecordOptions,
    now: string,
    result: RecordResult,
  ): MemoryRecord[] {
    const changed = new Map<string, MemoryRecord>();
    const texts = new Set([...known.values()].map((memory) => normalise(memory.text)));
    for (const op of operations) {
      const text = op.text?.trim();
      if (op.action === "add") {
        if (!text || texts.has(normalise(text))) continue;
        const memory: MemoryRecord = {
          id: newId("mem"),
          userId: scope.userId,
          kind: op.kind ?? "fact",
          text,
          createdAt: now,
          updatedAt: now,
        };
        if (scope.agentId !== undefined) memory.agentId = scope.agentId;
        if (options.source) memory.source = options.source;
        texts.add(normalise(text));
        changed.set(memory.id, memory);
        result.added.push(memory);
        continue;
      }
      // update / delete: only memories the extractor was shown, i.e. readable in this scope.
      const target = op.id === undefined ? undefined : (changed.get(op.id) ?? known.get(op.id));
      if (!target) continue;
      if (op.action === "delete") {
        known.delete(target.id);
        changed.delete(target.id);
        if (!result.deleted.includes(target.id)) result.deleted.push(target.id);
        result.added = result.added.filter((memory) => memory.id !== target.id);
        result.updated = result.updated.filter((memory) => memory.id !== target.id);
        continue;
      }
      if (!text || normalise(text) === normalise(target.text)) continue;
      const updated: MemoryRecord = {
        ...target,
        text,
        updatedAt: now,
        ...(op.kind ? { kind: op.kind } : {}),
      };
      texts.add(normalise(text));
      changed.set(updated.id, updated);
      const addedIndex = result.added.findIndex((memory) => memory.id === updated.id);
      if (addedIndex >= 0) result.added[addedIndex] = updated;
      else result.updated = [...result.updated.filter((memory) => memory.id !== updated.id), updated];
    }
    return [...changed.values()];
  }

  async retrieve(query: string, scope: MemoryScope, options: RetrieveOptions = {}): Promise<ScoredMemory[]> {
    assertScope(scope);
    const topK = options.topK ?? 5;
    if (!Number.isInteger(topK) || topK < 1)
      throw new RangeError(`retrieve: topK must be an integer ≥ 1, got ${topK}`);
    if (!(await this.#store.hasCollection(this.#collection)) || query.trim() === "") return [];
    const embedded = await this.#embedding.embed([query], options.signal ? { signal: options.signal } : {});
    const hits = await this.#store.search(this.#collection, {
      vector: embedded.vectors[0]!,
      topK,
      filter: readFilter(scope),
    });
    return hits
      .filter((hit) => options.minScore === undefined || hit.score >= options.minScore)
      .map((hit) => ({ ...fromChunk(hit.chunk), score: hit.score }));
  }

  async list(scope: MemoryScope, options: ListOptions = {}): Promise<MemoryRecord[]> {
    assertScope(scope);
    if (options.kinds?.length === 0) return [];
    if (!(await this.#store.hasCollection(this.#collection))) return [];
    const filter: MetadataFilter = options.kinds
      ? { ...readFilter(scope), kind: { $in: [...options.kinds] } }
      : readFilter(scope);
    const chunks = await this.#store.listChunks(this.#collection, { filter });
    return chunks
      .map(fromChunk)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async forget(target: string | MemoryFilter, scope: MemoryScope): Promise<number> {
    assertScope(scope);
    const filter: MemoryFilter = typeof target === "string" ? { ids: [target] } : target;
    const doomed = (await this.list(scope)).filter((memory) => matchesFilter(memory, filter));
    let removed = 0;
    for (const memory of doomed) {
      removed +=
        (await this.#store.deleteDocument(this.#collection, memory.id, readFilter(scope))) > 0 ? 1 : 0;
    }
    return removed;
  }

  #ensureCollection(): Promise<void> {
    this.#ready ??= this.#store
      .createCollection(this.#collection, { dimensions: this.#embedding.dimensions })
      .catch((error) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }
}

/** What a scope may read, as a store filter (see MemoryScope). */
function readFilter(scope: MemoryScope): MetadataFilter {
  return scope.agentId === undefined
    ? { userId: scope.userId }
    : { userId: scope.userId, agentId: { $in: [scope.agentId, SHARED] } };
}

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

function toRecord(memory: MemoryRecord, vector: number[]): ChunkRecord {
  const metadata: ChunkRecord["metadata"] = {
    userId: memory.userId,
    agentId: memory.agentId ?? SHARED,
    kind: memory.kind,
    createdAt: memory.createdAt,
    updatedAt: memory.updatedAt,
  };
  if (memory.source?.sessionId) metadata.sessionId = memory.source.sessionId;
  if (memory.source?.replyId) metadata.replyId = memory.source.replyId;
  return { documentId: memory.id, chunkIndex: 0, text: memory.text, source: "memory", metadata, vector };
}

function fromChunk(chunk: Chunk): MemoryRecord {
  const meta = chunk.metadata;
  const memory: MemoryRecord = {
    id: chunk.documentId,
    userId: String(meta.userId),
    kind: meta.kind === "preference" ? "preference" : ("fact" as MemoryKind),
    text: chunk.text,
    createdAt: String(meta.createdAt),
    updatedAt: String(meta.updatedAt),
  };
  if (typeof meta.agentId === "string" && meta.agentId !== SHARED) memory.agentId = meta.agentId;
  const source: NonNullable<MemoryRecord["source"]> = {};
  if (typeof meta.sessionId === "string") source.sessionId = meta.sessionId;
  if (typeof meta.replyId === "string") source.replyId = meta.replyId;
  if (Object.keys(source).length > 0) memory.source = source;
  return memory;
}
