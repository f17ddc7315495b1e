import { AgentScopeError } from "../message/index.js";
import type { EmbeddingModel } from "../model/embedding.js";
import { type EmbeddingCache, embeddingCacheKey, InMemoryEmbeddingCache } from "./embedding-cache.js";
import { RagError } from "./errors.js";

export interface EmbedderOptions {
  /** Texts per `embed` call; default 64. */
  batchSize?: number;
  /** Batches in flight at once; default 4. */
  concurrency?: number;
  /** Retries of a batch that failed transiently (rate limit, upstream, connection, timeout); default 3. */
  retries?: number;
  /** First retry delay, doubled each time; default 250 ms. */
  retryDelayMs?: number;
  /** Vectors by model + text hash; default a 10,000-entry in-memory cache; `false` for none. */
  cache?: EmbeddingCache | false;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

const TRANSIENT = new Set(["rate_limit", "upstream", "connection", "timeout"]);

/**
 * Runs an EmbeddingModel over many texts: cache first, then batches with a concurrency limit and
 * retries, checking every vector's length. `usage` counts the tokens actually sent.
 */
export class Embedder {
  readonly model: EmbeddingModel;
  readonly usage = { inputTokens: 0, requests: 0, cacheHits: 0 };
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #cache: EmbeddingCache | undefined;

  constructor(model: EmbeddingModel, options: EmbedderOptions = {}) {
    this.model = model;
    this.#batchSize = positive(options.batchSize ?? 64, "batchSize");
    this.#concurrency = positive(options.concurrency ?? 4, "concurrency");
    this.#retries = options.retries ?? 3;
    this.#retryDelayMs = options.retryDelayMs ?? 250;
    this.#cache = options.cache === false ? undefined : (options.cache ?? new InMemoryEmbeddingCache());
  }

  /** One vector per text, in order. */
  async embed(
    texts: readonly string[],
    options: { signal?: AbortSignal; onProgress?: (progress: EmbedProgress) => void } = {},
  ): Promise<number[][]> {
    const vectors: (number[] | undefined)[] = new Array(texts.length);
    const keys = texts.map((text) => embeddingCacheKey(this.model, text));
    const missing: number[] = [];
    for (let i = 0; i < texts.length; i++) {
      const cached = await this.#cache?.get(keys[i] as string);
      if (cached) {
        vectors[i] = cached;
        this.usage.cacheHits++;
      } else missing.push(i);
    }
    let done = texts.length - missing.length;
    options.onProgress?.({ done, total: texts.length });
    const batches: number[][] = [];
    for (let i = 0; i < missing.length; i += this.#batchSize)
      batches.push(missing.slice(i, i + this.#batchSize));
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++] as number[];
        const result = await this.#embedBatch(
          batch.map((i) => texts[i] as string),
          options.signal,
        );
        for (const [j, index] of batch.entries()) {
          const vector = result[j] as number[];
          vectors[index] = vector;
          await this.#cache?.set(keys[index] as string, vector);
        }
        done += batch.length;
        options.onProgress?.({ done, total: texts.length });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, batches.length) }, worker));
    return vectors as number[][];
  }

  async #embedBatch(texts: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      try {
        this.usage.requests++;
        const result = await this.model.embed(texts, signal ? { signal } : {});
        this.usage.inputTokens += result.usage.inputTokens;
        if (result.vectors.length !== texts.length) {
          throw new RagError(
            `embedding model ${this.model.name} returned ${result.vectors.length} vectors for ${texts.length} texts`,
            "internal",
          );
        }
        for (const vector of result.vectors) {
          if (vector.length !== this.model.dimensions) {
            throw new RagError(
              `embedding model ${this.model.name} returned a ${vector.length}-dimensional vector; it declares ${this.model.dimensions}`,
              "internal",
            );
          }
        }
        return result.vectors;
      } catch (error) {
        const transient = AgentScopeError.isInstance(error) && TRANSIENT.has(error.info.type);
        if (!transient || attempt >= this.#retries) throw error;
        await sleep(this.#retryDelayMs * 2 ** attempt, signal);
      }
    }
  }
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new RagError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
