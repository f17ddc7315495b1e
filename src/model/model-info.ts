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
