import type { EmbeddingModel, EmbeddingResult, EmbedOptions } from "../model/embedding.js";
import { estimateTextTokens } from "../model/estimate-tokens.js";

export interface HashEmbeddingOptions {
  /** Vector length; default 256. */
  dimensions?: number;
  /** Reported as the model name; default `hash-embedding`. */
  name?: string;
}

/** 32-bit FNV-1a. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic, offline EmbeddingModel for tests and demos: each lower-cased word and each
 * character trigram of a word is hashed into a signed bucket, and the vector is L2-normalised. Texts
 * sharing words (or word fragments) get a high cosine similarity; it knows no synonyms. `calls`
 * records every batch it was asked to embed.
 */
export class HashEmbedding implements EmbeddingModel {
  readonly provider = "hash";
  readonly name: string;
  readonly dimensions: number;
  /** Every `embed` call's texts, in call order. */
  readonly calls: string[][] = [];

  constructor(options: HashEmbeddingOptions = {}) {
    this.dimensions = options.dimensions ?? 256;
    this.name = options.name ?? "hash-embedding";
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1) {
      throw new Error(`HashEmbedding dimensions must be a positive integer, got ${options.dimensions}`);
    }
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<EmbeddingResult> {
    opts.signal?.throwIfAborted();
    this.calls.push([...texts]);
    return {
      vectors: texts.map((text) => this.vectorOf(text)),
      usage: { inputTokens: texts.reduce((sum, text) => sum + estimateTextTokens(text), 0) },
    };
  }

  /** The vector of one text (synchronous, for fixtures). */
  vectorOf(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const add = (feature: string, weight: number) => {
      const hash = fnv1a(feature);
      const index = hash % this.dimensions;
      vector[index] = (vector[index] as number) + (hash & 0x80000000 ? -weight : weight);
    };
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      add(`w:${word}`, 1);
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.3);
    }
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return norm === 0 ? vector : vector.map((x) => x / norm);
  }
}
