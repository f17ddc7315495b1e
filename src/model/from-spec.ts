import { AnthropicModel } from "./anthropic/index.js";
import type { ChatModel } from "./core.js";
import { DashScopeModel } from "./dashscope/index.js";
import { GeminiModel } from "./gemini/index.js";
import { MODEL_PROVIDERS, parseModelSpec } from "./model-spec.js";
import { OllamaModel } from "./ollama/index.js";
import {
  OPENAI_PRESETS,
  OpenAIChatModel,
  type OpenAIPresetName,
  OpenAIResponsesModel,
} from "./openai/index.js";
import { httpBaseURL, ollamaHostURL } from "./provider-kit/base-url.js";

// The spec grammar lives in a file without the providers, so the agent can check a spec cheaply.
export { MODEL_PROVIDERS, parseModelSpec } from "./model-spec.js";

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

/** The variables each provider's own SDK reads for its server address; honoured when no baseURL is given. */
export const BASE_URL_VARIABLES: Readonly<Record<string, string>> = {
  openai: "OPENAI_BASE_URL",
  "openai-responses": "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
  gemini: "GEMINI_BASE_URL",
  dashscope: "DASHSCOPE_BASE_URL",
  ollama: "OLLAMA_HOST",
};

/**
 * A base URL in the form the provider's requests expect, accepting both usual spellings: OpenAI-style
 * servers take `/v1` (added to a bare host), Anthropic's paths add `/v1` themselves (a trailing `/v1` is
 * dropped), Gemini's need a version (`/v1beta` added when none is given). Not http(s) (`file:`, `ftp:`,
 * `localhost:8080` without a scheme, empty): an error naming `field` and the value.
 */
export function normalizeBaseURL(provider: string, baseURL: string, field = "baseURL"): string {
  const url = new URL(httpBaseURL(baseURL, field, provider));
  const path = url.pathname.replace(/\/+$/, "");
  const base = `${url.origin}${path}${url.search}`;
  if (provider === "anthropic") return path.endsWith("/v1") ? base.slice(0, base.length - 3) : base;
  if (provider === "gemini") return /\/v\d+(beta|alpha)?\d*$/.test(path) ? base : `${base}/v1beta`;
  if (provider === "ollama") return base;
  return path === "" ? `${base}/v1` : base;
}

/**
 * Builds the ChatModel a spec names. Without a base URL, the provider's usual variable
 * (BASE_URL_VARIABLES, e.g. OPENAI_BASE_URL) is used when set. Unknown providers are an error
 * listing the known ones.
 */
export function modelFromSpec(spec: ModelSpec, env: NodeJS.ProcessEnv = process.env): ChatModel {
  const { provider, model, apiKeyEnv, ...rest } =
    typeof spec === "string" ? { ...parseModelSpec(spec), apiKeyEnv: undefined } : spec;
  const variable = BASE_URL_VARIABLES[provider];
  const field = rest.baseURL !== undefined ? "baseURL" : variable;
  const baseURL = rest.baseURL ?? (variable ? env[variable] || undefined : undefined);
  if (baseURL !== undefined && field !== undefined)
    rest.baseURL = normalizeBaseURL(
      provider,
      provider === "ollama" ? ollamaHostURL(baseURL, field) : baseURL,
      field,
    );
  if (apiKeyEnv !== undefined) {
    const key = env[apiKeyEnv];
    if (!key) throw new Error(`model ${provider}:${model}: the variable ${apiKeyEnv} (apiKeyEnv) is not set`);
    rest.apiKey = key;
  }
  const settings = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  switch (provider) {
    case "openai":
      return new OpenAIChatModel({ model, ...settings });
    case "openai-responses":
      return new OpenAIResponsesModel({ model, ...settings });
    case "anthropic":
      return new AnthropicModel({ model, ...settings });
    case "gemini":
      return new GeminiModel({ model, ...settings });
    case "ollama": {
      const { baseURL, ...others } = settings as { baseURL?: string };
      return new OllamaModel({ model, ...others, ...(baseURL ? { host: baseURL } : {}) });
    }
    case "dashscope":
      return new DashScopeModel({ model, ...settings });
    default:
      if (provider in OPENAI_PRESETS) {
        return new OpenAIChatModel({ model, preset: provider as OpenAIPresetName, ...settings });
      }
      throw new Error(`unknown model provider "${provider}" (known: ${MODEL_PROVIDERS.join(", ")})`);
  }
}

/** Default model per provider when only a key is configured. */
const DEFAULT_MODELS: Array<[envKey: string, spec: string]> = [
  ["OPENAI_API_KEY", "openai:gpt-4o-mini"],
  ["ANTHROPIC_API_KEY", "anthropic:claude-sonnet-4-5"],
  ["GEMINI_API_KEY", "gemini:gemini-2.5-flash"],
  ["DASHSCOPE_API_KEY", "dashscope:qwen-plus"],
  ["OLLAMA_HOST", "ollama:llama3.2"],
];

/**
 * The model the environment configures: `AGENTSCOPE_MODEL=provider:model` (with `AGENTSCOPE_BASE_URL`
 * for a custom server), else the first provider whose key is set (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `DASHSCOPE_API_KEY`, `OLLAMA_HOST`). Undefined when none is.
 */
export function modelFromEnvironment(env: NodeJS.ProcessEnv = process.env): ChatModel | undefined {
  const baseURL = env.AGENTSCOPE_BASE_URL || undefined;
  if (env.AGENTSCOPE_MODEL) {
    const parsed = parseModelSpec(env.AGENTSCOPE_MODEL);
    return modelFromSpec(baseURL && !parsed.baseURL ? { ...parsed, baseURL } : parsed, env);
  }
  for (const [key, spec] of DEFAULT_MODELS) {
    if (env[key]) return modelFromSpec(spec, env);
  }
  return undefined;
}
