import type { EmbedOptions } from "../embedding.js";
import {
  type OpenAIConnectionOptions,
  type ResolvedConnection,
  resolveConnection,
} from "../openai/connection.js";
import { OPENAI_PRESETS, type OpenAIPresetName } from "../openai/presets.js";
import type { EmbeddingProviderDefinition } from "../provider-kit/provider-definition.js";
import type { HttpRequest } from "../transport/types.js";
import {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";

export type OpenAIEmbeddingOptions = EmbeddingModelOptions & Omit<OpenAIConnectionOptions, "contextSize">;

/** The API's limit of inputs per request. */
const MAX_BATCH = 2048;

/**
 * OpenAI `/embeddings` (and any OpenAI-compatible server through `preset` / `baseURL`): float
 * vectors, `dimensions` sent for text-embedding-3 models, usage from `usage.prompt_tokens`.
 */
export class OpenAIEmbedding extends BatchingEmbeddingModel<OpenAIEmbeddingOptions> {
  readonly provider: string;
  protected readonly credentialHint: string;
  private readonly connection: ResolvedConnection;

  constructor(options: OpenAIEmbeddingOptions) {
    super(options, "OpenAI", MAX_BATCH);
    this.connection = resolveConnection(options);
    this.provider = this.connection.preset.provider;
    this.credentialHint = this.connection.credentialHint;
  }

  protected request(texts: string[], _opts: EmbedOptions): HttpRequest {
    const body: Record<string, unknown> = { model: this.name, input: texts, encoding_format: "float" };
    if (this.options.dimensions !== undefined && this.name.startsWith("text-embedding-3"))
      body.dimensions = this.options.dimensions;
    const { accept: _, ...headers } = this.connection.headers;
    return { url: this.connection.url("/embeddings"), headers, body };
  }

  protected parse(body: unknown, count: number): EmbeddingBatch {
    const data = (body as { data?: Array<{ index?: number }> } | null)?.data;
    if (!Array.isArray(data)) this.malformed("a `data` array", body);
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    const vectors = this.vectorsOf(
      ordered,
      count,
      (item) => (item as { embedding?: unknown }).embedding,
      body,
    );
    const tokens = (body as { usage?: { prompt_tokens?: number } }).usage?.prompt_tokens;
    return typeof tokens === "number" ? { vectors, inputTokens: tokens } : { vectors };
  }
}

/** `openai:text-embedding-3-small`. */
export const openAIEmbeddingProvider: EmbeddingProviderDefinition = {
  name: "openai",
  create: (settings) => new OpenAIEmbedding(settings),
};

/** Each OpenAI-compatible preset whose name is not a native provider's (`deepseek:...`, `vllm:...`). */
export const openAIPresetEmbeddingProviders: readonly EmbeddingProviderDefinition[] = (
  Object.keys(OPENAI_PRESETS) as OpenAIPresetName[]
)
  .filter((name) => !["openai", "ollama", "dashscope"].includes(name))
  .map((preset) => ({ name: preset, create: (settings) => new OpenAIEmbedding({ ...settings, preset }) }));
