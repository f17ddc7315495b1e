import type { ChatModel } from "./core.js";
import { parseModelSpec } from "./model-spec.js";
import { v1BaseURL } from "./provider-kit/base-url.js";
import type { ModelProviderDefinition, ModelSpecSettings } from "./provider-kit/provider-definition.js";
import {
  knownModelProviders,
  registeredModelProvider,
  registeredModelProviders,
} from "./provider-registry.js";
import { loadBuiltinModelProviders } from "./providers.js";

// The spec grammar lives in a file without the providers, so the agent can check a spec cheaply.
export { MODEL_PROVIDERS, parseModelSpec } from "./model-spec.js";
export { registerModelProvider, unregisterModelProvider } from "./provider-registry.js";

/**
 * A model by name: `provider:model` (e.g. `openai:gpt-4o-mini`), optionally with the server after `@`
 * (`openai:gpt-4o-mini@http://127.0.0.1:4010/v1`), or an object with connection settings
 * (`apiKeyEnv`: the variable holding the key, for configs that must not contain it).
 */
export type ModelSpec =
  | string
  | {
      provider: string;
      model: string;
      baseURL?: string;
      apiKey?: string;
      apiKeyEnv?: string;
      contextSize?: number;
    };

/**
 * The built-in definitions, loaded with this module (which builds models, so it carries the providers);
 * the table of names (providers.ts) stays loadable without them.
 */
export const BUILTIN_MODEL_DEFINITIONS: readonly ModelProviderDefinition[] =
  await loadBuiltinModelProviders();

const BUILTIN = new Map(BUILTIN_MODEL_DEFINITIONS.map((definition) => [definition.name, definition]));

/** The provider a spec names: a built-in one, else one registered with `registerModelProvider`. */
export function modelProvider(name: string): ModelProviderDefinition | undefined {
  return BUILTIN.get(name) ?? registeredModelProvider(name);
}

/** The variables each provider's own SDK reads for its server address; honoured when no baseURL is given. */
export const BASE_URL_VARIABLES: Readonly<Record<string, string>> = Object.fromEntries(
  BUILTIN_MODEL_DEFINITIONS.flatMap(({ name, baseURLVariable }) =>
    baseURLVariable === undefined ? [] : [[name, baseURLVariable]],
  ),
);

/**
 * A base URL in the form the provider's requests expect, accepting both usual spellings: OpenAI-style
 * servers take `/v1` (added to a bare host), Anthropic's paths add `/v1` themselves (a trailing `/v1` is
 * dropped), Gemini's need a version (`/v1beta` added when none is given); each provider's definition
 * says which (`normalizeBaseURL`). Not http(s) (`file:`, `ftp:`, `localhost:8080` without a scheme,
 * except Ollama's OLLAMA_HOST forms; empty): an error naming `field` and the value.
 */
export function normalizeBaseURL(provider: string, baseURL: string, field = "baseURL"): string {
  const normalize = modelProvider(provider)?.normalizeBaseURL;
  return normalize ? normalize(baseURL, field) : v1BaseURL(baseURL, field, provider);
}

/**
 * Builds the ChatModel a spec names. Without a base URL, the provider's usual variable
 * (BASE_URL_VARIABLES, e.g. OPENAI_BASE_URL) is used when set. Unknown providers are an error
 * listing the known ones.
 */
export function modelFromSpec(spec: ModelSpec, env: NodeJS.ProcessEnv = process.env): ChatModel {
  const { provider, model, apiKeyEnv, ...rest } =
    typeof spec === "string" ? { ...parseModelSpec(spec), apiKeyEnv: undefined } : spec;
  const definition = modelProvider(provider);
  const variable = definition?.baseURLVariable;
  const field = rest.baseURL !== undefined ? "baseURL" : variable;
  const baseURL = rest.baseURL ?? (variable ? env[variable] || undefined : undefined);
  if (baseURL !== undefined && field !== undefined) rest.baseURL = normalizeBaseURL(provider, baseURL, field);
  if (apiKeyEnv !== undefined) {
    const key = env[apiKeyEnv];
    if (!key) throw new Error(`model ${provider}:${model}: the variable ${apiKeyEnv} (apiKeyEnv) is not set`);
    rest.apiKey = key;
  }
  if (definition === undefined)
    throw new Error(`unknown model provider "${provider}" (known: ${knownModelProviders().join(", ")})`);
  const settings = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return definition.create({ model, ...settings } as ModelSpecSettings);
}

/**
 * The model the environment configures: `AGENTSCOPE_MODEL=provider:model` (with `AGENTSCOPE_BASE_URL`
 * for a custom server), else the default model of the first provider whose key is set (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `DASHSCOPE_API_KEY`, `OLLAMA_HOST`, then registered
 * providers'). Undefined when none is.
 */
export function modelFromEnvironment(env: NodeJS.ProcessEnv = process.env): ChatModel | undefined {
  const baseURL = env.AGENTSCOPE_BASE_URL || undefined;
  if (env.AGENTSCOPE_MODEL) {
    const parsed = parseModelSpec(env.AGENTSCOPE_MODEL);
    return modelFromSpec(baseURL && !parsed.baseURL ? { ...parsed, baseURL } : parsed, env);
  }
  for (const { name, defaultModel } of [...BUILTIN_MODEL_DEFINITIONS, ...registeredModelProviders()]) {
    if (defaultModel && env[defaultModel.when]) return modelFromSpec(`${name}:${defaultModel.model}`, env);
  }
  return undefined;
}
