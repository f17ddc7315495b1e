import { createHash } from "node:crypto";
import type { EmbeddingModel } from "../model/embedding.js";

/** Where computed vectors are kept between calls. Implementations may evict at will. */
export interface EmbeddingCache {
  get(key: string): number[] | undefined | Promise<number[] | undefined>;
  set(key: string, vector: number[]): void | Promise<void>;
}

/** The cache key of a text for a model: provider, name, dimensions and the SHA-256 of the text. */
export function embeddingCacheKey(model: EmbeddingModel, text: string): string {
  const hash = createHash("sha256").update(text).digest("hex");
  return `${model.provider}:${model.name}:${model.dimensions}:${hash}`;
}

/** A bounded in-process cache, least recently used evicted first. */
export class InMemoryEmbeddingCache implements EmbeddingCache {
  readonly #entries = new Map<string, number[]>();
  constructor(readonly maxEntries = 10_000) {}

  get(key: string): number[] | undefined {
    const vector = this.#entries.get(key);
    if (vector) {
      this.#entries.delete(key);
      this.#entries.set(key, vector);
    }
    return vector;
  }

  set(key: string, vector: number[]): void {
    this.#entries.delete(key);
    this.#entries.set(key, vector);
    if (this.#entries.size > this.maxEntries)
      this.#entries.delete(this.#entries.keys().next().value as string);
  }

  get size(): number {
    return this.#entries.size;
  }
}
