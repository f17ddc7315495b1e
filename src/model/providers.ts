import { anthropicProvider } from "./anthropic/index.js";
import { dashScopeProvider } from "./dashscope/index.js";
import { geminiProvider } from "./gemini/index.js";
import { ollamaProvider } from "./ollama/index.js";
import { openAIChatProvider, openAIPresetProviders, openAIResponsesProvider } from "./openai/index.js";
import type { ModelProviderDefinition } from "./provider-kit/provider-definition.js";

/**
 * The built-in model providers, each defined in its folder. The order is `modelFromEnvironment`'s:
 * the first whose key variable is set gives the default model. Their names are also listed, without
 * loading them, in model-spec.ts (MODEL_PROVIDERS; a test checks the two agree).
 */
export const BUILTIN_MODEL_PROVIDERS: readonly ModelProviderDefinition[] = [
  openAIChatProvider,
  openAIResponsesProvider,
  anthropicProvider,
  geminiProvider,
  dashScopeProvider,
  ollamaProvider,
  ...openAIPresetProviders,
];
