import type { EmbeddingModel } from "./embedding.js";
import { DashScopeEmbedding, GeminiEmbedding, OllamaEmbedding, OpenAIEmbedding } from "./embeddings/index.js";
import { BASE_URL_VARIABLES, normalizeBaseURL } from "./from-spec.js";
import { parseModelSpec } from "./model-spec.js";
import { OPENAI_PRESETS, type OpenAIPresetName } from "./openai/presets.js";
import { ollamaHostURL } from "./provider-kit/base-url.js";

/** The providers `embeddingFromSpec` knows: the native ones and the OpenAI-compatible presets. */
export const EMBEDDING_PROVIDERS = [
  "openai",
  "gemini",
  "ollama",
  "dashscope",
  ...Object.keys(OPENAI_PRESETS).filter((name) => !["openai", "ollama", "dashscope"].includes(name)),
] as const;

/**
 * The EmbeddingModel a spec names, written like a chat model spec: `provider:model[@baseURL]`
 * (`openai:text-embedding-3-small`, `ollama:nomic-embed-text`, `gemini:gemini-embedding-001`,
 * `dashscope:text-embedding-v4`, or an OpenAI-compatible preset). Without a base URL the provider's
 * usual variable is read (BASE_URL_VARIABLES), keys come from the provider's variable as for chat
 * models. `dimensions` overrides the model's native vector length. Unknown providers are an error
 * listing the known ones.
 */
export function embeddingFromSpec(
  spec: string,
  options: { dimensions?: number } = {},
  env: NodeJS.ProcessEnv = process.env,
): EmbeddingModel {
  const parsed = parseModelSpec(spec);
  const { provider, model } = parsed;
  const variable = BASE_URL_VARIABLES[provider];
  const given = parsed.baseURL ?? (variable ? env[variable] || undefined : undefined);
  const field = parsed.baseURL !== undefined ? "baseURL" : (variable ?? "baseURL");
  const dims = options.dimensions === undefined ? {} : { dimensions: options.dimensions };
  switch (provider) {
    case "ollama":
      return new OllamaEmbedding({
        model,
        ...dims,
        ...(given ? { host: normalizeBaseURL("ollama", ollamaHostURL(given, field), field) } : {}),
      });
    case "gemini":
      return new GeminiEmbedding({
        model,
        ...dims,
        ...(given ? { baseURL: normalizeBaseURL(provider, given, field) } : {}),
      });
    case "dashscope":
      return new DashScopeEmbedding({ model, ...dims, ...(given ? { baseURL: given } : {}) });
    default: {
      if (!(EMBEDDING_PROVIDERS as readonly string[]).includes(provider)) {
        throw new Error(
          `embedding "${spec}": unknown provider "${provider}" (known: ${EMBEDDING_PROVIDERS.join(", ")})`,
        );
      }
      return new OpenAIEmbedding({
        model,
        ...dims,
        ...(provider === "openai" ? {} : { preset: provider as OpenAIPresetName }),
        ...(given ? { baseURL: normalizeBaseURL(provider, given, field) } : {}),
      });
    }
  }
}
