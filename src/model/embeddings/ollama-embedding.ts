import type { EmbedOptions } from "../embedding.js";
import { ollamaHostOf } from "../ollama/ollama-model.js";
import type { EmbeddingProviderDefinition } from "../provider-kit/provider-definition.js";
import { joinUrl, setting } from "../provider-kit/settings.js";
import type { HttpRequest } from "../transport/types.js";
import {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";

export interface OllamaEmbeddingOptions extends EmbeddingModelOptions {
  /** Defaults to OLLAMA_HOST, else http://127.0.0.1:11434. */
  host?: string;
  /** Sent as a bearer token when set (hosted Ollama); defaults to OLLAMA_API_KEY. */
  apiKey?: string;
  headers?: Record<string, string>;
}

/** Ollama sets no limit; this keeps one request's body and latency reasonable. */
const MAX_BATCH = 512;

/** Ollama `/api/embed` (batched `input`), usage from `prompt_eval_count`. */
export class OllamaEmbedding extends BatchingEmbeddingModel<OllamaEmbeddingOptions> {
  readonly provider = "ollama";
  protected readonly credentialHint = "OLLAMA_API_KEY or the apiKey option (only hosted Ollama needs one)";

  constructor(options: OllamaEmbeddingOptions) {
    super(options, "Ollama", MAX_BATCH);
  }

  protected request(texts: string[], _opts: EmbedOptions): HttpRequest {
    const o = this.options;
    const host = ollamaHostOf(o.host);
    const apiKey = setting(o.apiKey, "OLLAMA_API_KEY");
    const headers: Record<string, string> = { "content-type": "application/json", ...o.headers };
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    const body: Record<string, unknown> = { model: this.name, input: texts };
    if (o.dimensions !== undefined) body.dimensions = o.dimensions;
    return { url: joinUrl(host, "/api/embed"), headers, body };
  }

  protected parse(body: unknown, count: number): EmbeddingBatch {
    const record = body as { embeddings?: unknown; prompt_eval_count?: unknown } | null;
    const vectors = this.vectorsOf(record?.embeddings, count, (item) => item, body);
    const tokens = record?.prompt_eval_count;
    return typeof tokens === "number" ? { vectors, inputTokens: tokens } : { vectors };
  }
}

/** `ollama:nomic-embed-text`: a base URL is the host. */
export const ollamaEmbeddingProvider: EmbeddingProviderDefinition = {
  name: "ollama",
  create: ({ baseURL, ...settings }) =>
    new OllamaEmbedding(baseURL ? { ...settings, host: baseURL } : settings),
};
