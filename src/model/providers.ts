import { OPENAI_PRESET_PROVIDERS } from "./openai/presets.js";
import type { ModelProviderDefinition } from "./provider-kit/provider-definition.js";

/**
 * A built-in provider as the table lists it: its spec name, known without loading anything, and its
 * definition, imported on demand (so the core can check a spec without carrying any provider).
 */
export interface BuiltinModelProvider {
  readonly name: string;
  /** The provider's definition (its `name` must be this entry's). */
  load(): Promise<ModelProviderDefinition>;
}

/**
 * The built-in model providers: the one list a new provider joins. The order is
 * `modelFromEnvironment`'s (the first whose key variable is set gives the default model) and the
 * order names are listed in errors.
 */
export const BUILTIN_MODEL_PROVIDERS: readonly BuiltinModelProvider[] = [
  { name: "openai", load: async () => (await import("./openai/chat-model.js")).openAIChatProvider },
  {
    name: "openai-responses",
    load: async () => (await import("./openai/responses-model.js")).openAIResponsesProvider,
  },
  { name: "anthropic", load: async () => (await import("./anthropic/anthropic-model.js")).anthropicProvider },
  { name: "gemini", load: async () => (await import("./gemini/gemini-model.js")).geminiProvider },
  { name: "dashscope", load: async () => (await import("./dashscope/dashscope-model.js")).dashScopeProvider },
  { name: "ollama", load: async () => (await import("./ollama/ollama-model.js")).ollamaProvider },
  ...OPENAI_PRESET_PROVIDERS.map((preset) => ({
    name: preset,
    load: async () => (await import("./openai/chat-model.js")).openAIPresetProvider(preset),
  })),
];

/** Every definition of the table (the built-in one by default), in its order; an entry whose definition has another name is an error. */
export async function loadBuiltinModelProviders(
  table: readonly BuiltinModelProvider[] = BUILTIN_MODEL_PROVIDERS,
): Promise<ModelProviderDefinition[]> {
  return Promise.all(
    table.map(async ({ name, load }) => {
      const definition = await load();
      if (definition.name !== name)
        throw new Error(`built-in model provider "${name}" loaded a definition named "${definition.name}"`);
      return definition;
    }),
  );
}
