import type { EmbedOptions } from "../embedding.js";
import type { EmbeddingProviderDefinition } from "../provider-kit/provider-definition.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { HttpRequest } from "../transport/types.js";
import {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";

export interface GeminiEmbeddingOptions extends EmbeddingModelOptions {
  /** Defaults to GEMINI_API_KEY, else GOOGLE_API_KEY. */
  apiKey?: string;
  /** Defaults to GEMINI_BASE_URL, else https://generativelanguage.googleapis.com/v1beta. */
  baseURL?: string;
  headers?: Record<string, string>;
}

/** batchEmbedContents takes at most 100 requests. */
const MAX_BATCH = 100;

/**
 * Gemini `batchEmbedContents`: one request per text with `taskType` from `inputType` and
 * `outputDimensionality` when `dimensions` is set. The API reports no token usage: it is estimated.
 */
export class GeminiEmbedding extends BatchingEmbeddingModel<GeminiEmbeddingOptions> {
  readonly provider = "gemini";
  protected readonly credentialHint = "GEMINI_API_KEY or the apiKey option";

  constructor(options: GeminiEmbeddingOptions) {
    super(options, "Gemini", MAX_BATCH);
  }

  protected request(texts: string[], opts: EmbedOptions): HttpRequest {
    const o = this.options;
    const { apiKey, baseURL } = providerEndpoint("gemini", o);
    const model = `models/${this.name}`;
    const requests = texts.map((text) => {
      const request: Record<string, unknown> = { model, content: { parts: [{ text }] } };
      if (opts.inputType !== undefined)
        request.taskType = opts.inputType === "query" ? "RETRIEVAL_QUERY" : "RETRIEVAL_DOCUMENT";
      if (o.dimensions !== undefined) request.outputDimensionality = o.dimensions;
      return request;
    });
    return {
      url: joinUrl(baseURL, `/models/${encodeURIComponent(this.name)}:batchEmbedContents`),
      headers: { "content-type": "application/json", "x-goog-api-key": apiKey, ...o.headers },
      body: { requests },
    };
  }

  protected parse(body: unknown, count: number): EmbeddingBatch {
    const list = (body as { embeddings?: unknown } | null)?.embeddings;
    return { vectors: this.vectorsOf(list, count, (item) => (item as { values?: unknown }).values, body) };
  }
}

/** `gemini:gemini-embedding-001`. */
export const geminiEmbeddingProvider: EmbeddingProviderDefinition = {
  name: "gemini",
  create: (settings) => new GeminiEmbedding(settings),
};
