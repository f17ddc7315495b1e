/** What a model can take and give, in tokens. */
export interface ModelInfo {
  contextSize: number;
  maxOutputTokens: number;
}

/** Known models by name prefix; the longest matching prefix wins. Extend with `registerModelInfo`. */
const table = new Map<string, ModelInfo>(
  Object.entries({
    "gpt-3.5-turbo": { contextSize: 16_385, maxOutputTokens: 4_096 },
    "gpt-4-turbo": { contextSize: 128_000, maxOutputTokens: 4_096 },
    "gpt-4o": { contextSize: 128_000, maxOutputTokens: 16_384 },
    "gpt-4o-mini": { contextSize: 128_000, maxOutputTokens: 16_384 },
    "gpt-4.1": { contextSize: 1_047_576, maxOutputTokens: 32_768 },
    "gpt-5": { contextSize: 400_000, maxOutputTokens: 128_000 },
    o1: { contextSize: 200_000, maxOutputTokens: 100_000 },
    o3: { contextSize: 200_000, maxOutputTokens: 100_000 },
    "o4-mini": { contextSize: 200_000, maxOutputTokens: 100_000 },
    "deepseek-chat": { contextSize: 128_000, maxOutputTokens: 8_192 },
    "deepseek-reasoner": { contextSize: 128_000, maxOutputTokens: 65_536 },
    "qwen-max": { contextSize: 32_768, maxOutputTokens: 8_192 },
    "qwen-plus": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "qwen-turbo": { contextSize: 1_000_000, maxOutputTokens: 8_192 },
    "qwen3-max": { contextSize: 262_144, maxOutputTokens: 65_536 },
    "kimi-k2": { contextSize: 262_144, maxOutputTokens: 16_384 },
    "moonshot-v1-8k": { contextSize: 8_192, maxOutputTokens: 4_096 },
    "moonshot-v1-32k": { contextSize: 32_768, maxOutputTokens: 4_096 },
    "moonshot-v1-128k": { contextSize: 131_072, maxOutputTokens: 4_096 },
    // Anthropic
    "claude-3-5-haiku": { contextSize: 200_000, maxOutputTokens: 8_192 },
    "claude-3-5-sonnet": { contextSize: 200_000, maxOutputTokens: 8_192 },
    "claude-3-7-sonnet": { contextSize: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4": { contextSize: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4-5": { contextSize: 200_000, maxOutputTokens: 64_000 },
    "claude-sonnet-4-6": { contextSize: 1_000_000, maxOutputTokens: 128_000 },
    "claude-opus-4": { contextSize: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4-1": { contextSize: 200_000, maxOutputTokens: 32_000 },
    "claude-opus-4-5": { contextSize: 200_000, maxOutputTokens: 64_000 },
    "claude-opus-4-6": { contextSize: 1_000_000, maxOutputTokens: 128_000 },
    "claude-haiku-4-5": { contextSize: 200_000, maxOutputTokens: 64_000 },
    // Gemini
    "gemini-1.5-flash": { contextSize: 1_048_576, maxOutputTokens: 8_192 },
    "gemini-1.5-pro": { contextSize: 2_097_152, maxOutputTokens: 8_192 },
    "gemini-2.0-flash": { contextSize: 1_048_576, maxOutputTokens: 8_192 },
    "gemini-2.5-flash": { contextSize: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-2.5-pro": { contextSize: 1_048_576, maxOutputTokens: 65_536 },
    "gemini-3": { contextSize: 1_048_576, maxOutputTokens: 65_536 },
    // Ollama (what the model supports; Ollama's num_ctx may allocate less)
    "llama3.1": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "llama3.2": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "llama3.3": { contextSize: 131_072, maxOutputTokens: 8_192 },
    llama4: { contextSize: 10_485_760, maxOutputTokens: 8_192 },
    qwen3: { contextSize: 40_960, maxOutputTokens: 8_192 },
    "qwen2.5": { contextSize: 32_768, maxOutputTokens: 8_192 },
    "deepseek-r1": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "gpt-oss": { contextSize: 131_072, maxOutputTokens: 32_768 },
    gemma3: { contextSize: 131_072, maxOutputTokens: 8_192 },
    mistral: { contextSize: 32_768, maxOutputTokens: 8_192 },
    // DashScope
    "qwen-flash": { contextSize: 1_000_000, maxOutputTokens: 32_768 },
    "qwen-long": { contextSize: 10_000_000, maxOutputTokens: 8_192 },
    "qwen3-coder-plus": { contextSize: 1_000_000, maxOutputTokens: 65_536 },
    "qwen3.5-plus": { contextSize: 1_000_000, maxOutputTokens: 65_536 },
    "qwen3.5-flash": { contextSize: 1_000_000, maxOutputTokens: 65_536 },
    "qwen-vl-max": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "qwen-vl-plus": { contextSize: 131_072, maxOutputTokens: 8_192 },
    "qwen3-vl-plus": { contextSize: 262_144, maxOutputTokens: 32_768 },
  }),
);

/** Adds or replaces the info for every model whose name starts with `prefix`. */
export function registerModelInfo(prefix: string, info: ModelInfo): void {
  table.set(prefix, info);
}

/** Info for a model name (a `provider/` prefix is ignored), or undefined when unknown. */
export function modelInfo(name: string): ModelInfo | undefined {
  const bare = name.slice(name.lastIndexOf("/") + 1);
  let best: string | undefined;
  for (const prefix of table.keys()) {
    if (bare.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : table.get(best);
}

/** Context size used when neither the options nor the table know the model. */
export const DEFAULT_CONTEXT_SIZE = 128_000;
