import type { EmbeddingModel } from "./embedding.js";
import {
  dashScopeEmbeddingProvider,
  geminiEmbeddingProvider,
  ollamaEmbeddingProvider,
  openAIEmbeddingProvider,
  openAIPresetEmbeddingProviders,
} from "./embeddings/index.js";
import { BASE_URL_VARIABLES, normalizeBaseURL } from "./from-spec.js";
import { parseModelSpec } from "./model-spec.js";
import type { EmbeddingProviderDefinition } from "./provider-kit/provider-definition.js";

/** The embedding providers, each defined beside its model (src/model/embeddings/). */
const DEFINITIONS: readonly EmbeddingProviderDefinition[] = [
  openAIEmbeddingProvider,
  geminiEmbeddingProvider,
  ollamaEmbeddingProvider,
  dashScopeEmbeddingProvider,
  ...openAIPresetEmbeddingProviders,
];
const BY_NAME = new Map(DEFINITIONS.map((definition) => [definition.name, definition]));

/** The providers `embeddingFromSpec` knows: the native ones and the OpenAI-compatible presets. */
export const EMBEDDING_PROVIDERS: readonly string[] = DEFINITIONS.map(({ name }) => name);

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
  const definition = BY_NAME.get(provider);
  if (definition === undefined) {
    throw new Error(
      `embedding "${spec}": unknown provider "${provider}" (known: ${EMBEDDING_PROVIDERS.join(", ")})`,
    );
  }
  const variable = BASE_URL_VARIABLES[provider];
  const given = parsed.baseURL ?? (variable ? env[variable] || undefined : undefined);
  const field = parsed.baseURL !== undefined ? "baseURL" : (variable ?? "baseURL");
  const settings: { model: string; dimensions?: number; baseURL?: string } = { model };
  if (options.dimensions !== undefined) settings.dimensions = options.dimensions;
  if (given) settings.baseURL = definition.baseURLAsGiven ? given : normalizeBaseURL(provider, given, field);
  return definition.create(settings);
}
