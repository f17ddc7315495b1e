import type { EmbedOptions } from "../embedding.js";
import type { EmbeddingProviderDefinition } from "../provider-kit/provider-definition.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { HttpRequest } from "../transport/types.js";
import {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";

export interface DashScopeEmbeddingOptions extends EmbeddingModelOptions {
  /** Defaults to DASHSCOPE_API_KEY. */
  apiKey?: string;
  /** Defaults to DASHSCOPE_BASE_URL, else https://dashscope.aliyuncs.com/api/v1. */
  baseURL?: string;
  headers?: Record<string, string>;
}

/** text-embedding-v3 / v4 take at most 10 texts per request; v1 / v2 take 25. */
function maxBatch(model: string): number {
  return /^text-embedding-v[12]$/.test(model) ? 25 : 10;
}

/**
 * DashScope native text embedding (`text-embedding-v4`, ...): `dimension` and `text_type` (from
 * `inputType`) in `parameters`, vectors ordered by `text_index`, usage from `usage.total_tokens`.
 */
export class DashScopeEmbedding extends BatchingEmbeddingModel<DashScopeEmbeddingOptions> {
  readonly provider = "dashscope";
  protected readonly credentialHint = "DASHSCOPE_API_KEY or the apiKey option";

  constructor(options: DashScopeEmbeddingOptions) {
    super(options, "DashScope", maxBatch(options.model));
  }

  protected request(texts: string[], opts: EmbedOptions): HttpRequest {
    const o = this.options;
    const { apiKey, baseURL } = providerEndpoint("dashscope", o);
    const parameters: Record<string, unknown> = {};
    if (o.dimensions !== undefined) parameters.dimension = o.dimensions;
    if (opts.inputType !== undefined) parameters.text_type = opts.inputType;
    return {
      url: joinUrl(baseURL, "/services/embeddings/text-embedding/text-embedding"),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}`, ...o.headers },
      body: { model: this.name, input: { texts }, parameters },
    };
  }

  protected parse(body: unknown, count: number): EmbeddingBatch {
    const record = body as {
      output?: { embeddings?: Array<{ text_index?: number }> };
      usage?: { total_tokens?: number };
    } | null;
    const list = record?.output?.embeddings;
    if (!Array.isArray(list)) this.malformed("`output.embeddings`", body);
    const ordered = [...list].sort((a, b) => (a.text_index ?? 0) - (b.text_index ?? 0));
    const vectors = this.vectorsOf(
      ordered,
      count,
      (item) => (item as { embedding?: unknown }).embedding,
      body,
    );
    const tokens = record?.usage?.total_tokens;
    return typeof tokens === "number" ? { vectors, inputTokens: tokens } : { vectors };
  }
}

/** `dashscope:text-embedding-v4`: a base URL is taken as given. */
export const dashScopeEmbeddingProvider: EmbeddingProviderDefinition = {
  name: "dashscope",
  baseURLAsGiven: true,
  create: (settings) => new DashScopeEmbedding(settings),
};
