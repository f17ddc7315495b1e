import { AgentScopeError, ValidationError } from "../../message/index.js";
import type { EmbeddingModel, EmbeddingResult, EmbedOptions } from "../embedding.js";
import { estimateTextTokens } from "../estimate-tokens.js";
import { malformedChunk } from "../transport/errors.js";
import { requestJson } from "../transport/request-json.js";
import type { HttpRequest, TransportOptions } from "../transport/types.js";

/** Options every provider embedding model takes. */
export interface EmbeddingModelOptions extends TransportOptions {
  /** The model name sent to the provider. */
  model: string;
  /**
   * Vector length. Default: the model's native length from a small table (OpenAI, Gemini, common
   * Ollama and DashScope models); required for other models. Sent to providers that can shorten
   * vectors (OpenAI text-embedding-3, Gemini, DashScope v3/v4, Ollama `dimensions`).
   */
  dimensions?: number;
  /** Texts per request; default (and maximum) the provider's documented batch limit. */
  batchSize?: number;
}

/** One provider request's answer: one vector per text, and the tokens it reports (when it does). */
export interface EmbeddingBatch {
  vectors: number[][];
  inputTokens?: number;
}

/** Native vector lengths of well-known embedding models. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "gemini-embedding-001": 3072,
  "text-embedding-004": 768,
  "nomic-embed-text": 768,
  "mxbai-embed-large": 1024,
  "all-minilm": 384,
  "bge-m3": 1024,
  "text-embedding-v4": 1024,
  "text-embedding-v3": 1024,
  "text-embedding-v2": 1536,
  "text-embedding-v1": 1536,
};

/**
 * What the provider embedding models share: input checks, splitting into provider-sized batches
 * (sent one after another, in order), retries and typed errors (the chat transport's `requestJson`),
 * a vector-count and length check per batch, and usage summed over batches (estimated for a batch
 * whose provider reports none).
 */
export abstract class BatchingEmbeddingModel<O extends EmbeddingModelOptions> implements EmbeddingModel {
  abstract readonly provider: string;
  readonly name: string;
  readonly dimensions: number;
  protected readonly batchSize: number;

  constructor(
    protected readonly options: O,
    providerName: string,
    maxBatch: number,
  ) {
    this.name = options.model;
    const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[options.model.replace(/:.*$/, "")];
    if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions < 1) {
      throw new ValidationError(
        `${providerName} embedding options`,
        "dimensions",
        options.dimensions === undefined
          ? `the vector length of "${options.model}" is not known: pass \`dimensions\``
          : `must be a positive integer, got ${options.dimensions}`,
      );
    }
    this.dimensions = dimensions;
    const batchSize = options.batchSize ?? maxBatch;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > maxBatch) {
      throw new ValidationError(
        `${providerName} embedding options`,
        "batchSize",
        `must be an integer from 1 to ${maxBatch} (the provider's limit), got ${options.batchSize}`,
      );
    }
    this.batchSize = batchSize;
  }

  async embed(texts: readonly string[], opts: EmbedOptions = {}): Promise<EmbeddingResult> {
    if (!Array.isArray(texts))
      throw new ValidationError("embed input", "texts", "must be an array of strings");
    texts.forEach((text, index) => {
      if (typeof text !== "string") {
        throw new ValidationError("embed input", `texts[${index}]`, `must be a string, got ${typeof text}`);
      }
    });
    const vectors: number[][] = [];
    let inputTokens = 0;
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize);
      const answer = this.parse(await this.post(this.request(batch, opts), opts), batch.length);
      for (const vector of answer.vectors) vectors.push(this.checked(vector, vectors.length));
      inputTokens += answer.inputTokens ?? batch.reduce((sum, text) => sum + estimateTextTokens(text), 0);
    }
    return { vectors, usage: { inputTokens } };
  }

  /** The HTTP request for one batch. */
  protected abstract request(texts: string[], opts: EmbedOptions): HttpRequest;

  /** The vectors (in input order) and token count of one batch's response body. */
  protected abstract parse(body: unknown, count: number): EmbeddingBatch;

  /** Where to look when the provider rejects the credentials. */
  protected abstract readonly credentialHint: string;

  private post(request: HttpRequest, opts: EmbedOptions): Promise<unknown> {
    return requestJson({
      provider: this.provider,
      request,
      signal: opts.signal,
      credentialHint: this.credentialHint,
      transport: this.options.transport,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
    });
  }

  private checked(vector: number[], index: number): number[] {
    if (vector.length !== this.dimensions) {
      throw new AgentScopeError({
        type: "invalid_request",
        message: `${this.provider} returned a vector of length ${vector.length} for input ${index}, but ${this.name} was configured with dimensions ${this.dimensions}. Set \`dimensions\` to the model's vector length.`,
        source: this.provider,
      });
    }
    return vector;
  }

  /** A response that does not have the documented shape. */
  protected malformed(expected: string, body: unknown): never {
    throw malformedChunk(this.provider, expected, JSON.stringify(body) ?? String(body));
  }

  /** `count` vectors from `list`, each an array of numbers, or a malformed-response error. */
  protected vectorsOf(
    list: unknown,
    count: number,
    pick: (item: unknown) => unknown,
    body: unknown,
  ): number[][] {
    if (!Array.isArray(list) || list.length !== count) this.malformed(`${count} embeddings`, body);
    return list.map((item) => {
      const vector = pick(item);
      if (!Array.isArray(vector) || vector.some((x) => typeof x !== "number")) {
        this.malformed("numeric embedding vectors", body);
      }
      return vector as number[];
    });
  }
}
