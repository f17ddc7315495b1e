import { AnthropicModel } from "./anthropic/index.js";
import type { ChatModel } from "./core.js";
import { DashScopeModel } from "./dashscope/index.js";
import { GeminiModel } from "./gemini/index.js";
import { OllamaModel } from "./ollama/index.js";
import {
  OPENAI_PRESETS,
  OpenAIChatModel,
  type OpenAIPresetName,
  OpenAIResponsesModel,
} from "./openai/index.js";

/** A model by name: `provider:model` (e.g. `openai:gpt-4o-mini`), or an object with connection settings. */
export type ModelSpec =
  | string
  | { provider: string; model: string; baseURL?: string; apiKey?: string; contextSize?: number };

export const MODEL_PROVIDERS = [
  "openai",
  "openai-responses",
  "anthropic",
  "gemini",
  "ollama",
  "dashscope",
  ...Object.keys(OPENAI_PRESETS).filter(
    (name) => name !== "openai" && name !== "ollama" && name !== "dashscope",
  ),
] as const;

/** Parses `provider:model`; the model part may itself contain colons (`ollama:llama3.2:3b`). */
export function parseModelSpec(spec: string): { provider: string; model: string } {
  const colon = spec.indexOf(":");
  if (colon <= 0 || colon === spec.length - 1) {
    throw new Error(
      `model "${spec}" must be written provider:model, e.g. openai:gpt-4o-mini (providers: ${MODEL_PROVIDERS.join(", ")})`,
    );
  }
  return { provider: spec.slice(0, colon), model: spec.slice(colon + 1) };
}

/** Builds the ChatModel a spec names. Unknown providers are an error listing the known ones. */
export function modelFromSpec(spec: ModelSpec): ChatModel {
  const { provider, model, ...rest } = typeof spec === "string" ? parseModelSpec(spec) : spec;
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
    const { provider, model } = parseModelSpec(env.AGENTSCOPE_MODEL);
    return modelFromSpec(baseURL ? { provider, model, baseURL } : { provider, model });
  }
  for (const [key, spec] of DEFAULT_MODELS) {
    if (env[key]) return modelFromSpec(spec);
  }
  return undefined;
}
