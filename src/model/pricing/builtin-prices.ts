import type { ModelPrice } from "./model-price.js";

/**
 * The prices agentscope ships, keyed `provider:model` (a model name matches its key when it is the
 * key or starts with it followed by `-`, `.`, `@`, `:` or `/`: `gpt-4o` prices `gpt-4o-2024-08-06`;
 * the longest key wins; `provider:*` is any model of that provider). US dollars per million tokens, standard (not batch, not priority) tier,
 * the first tier where a provider charges more for long prompts. Prices change: check `asOf`, and
 * override any of them with `pricingTable({ prices })` (docs/tracing-and-budgets.md, "Cost").
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI (platform.openai.com/docs/pricing)
  "openai:gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10, asOf: "2025-10-01" },
  "openai:gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6, asOf: "2025-10-01" },
  "openai:gpt-4.1": { input: 2, cachedInput: 0.5, output: 8, asOf: "2025-10-01" },
  "openai:gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6, asOf: "2025-10-01" },
  "openai:gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4, asOf: "2025-10-01" },
  "openai:gpt-5": { input: 1.25, cachedInput: 0.125, output: 10, asOf: "2025-10-01" },
  "openai:gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2, asOf: "2025-10-01" },
  "openai:gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4, asOf: "2025-10-01" },
  "openai:o1": { input: 15, cachedInput: 7.5, output: 60, asOf: "2025-10-01" },
  "openai:o3": { input: 2, cachedInput: 0.5, output: 8, asOf: "2025-10-01" },
  "openai:o3-mini": { input: 1.1, cachedInput: 0.55, output: 4.4, asOf: "2025-10-01" },
  "openai:o3-pro": { input: 20, output: 80, asOf: "2025-10-01" },
  "openai:o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4, asOf: "2025-10-01" },
  // Anthropic (claude.com/pricing): cache writes at the 5-minute rate.
  "anthropic:claude-opus-4": {
    input: 15,
    cachedInput: 1.5,
    cacheWrite: 18.75,
    output: 75,
    asOf: "2025-10-01",
  },
  "anthropic:claude-opus-4-1": {
    input: 15,
    cachedInput: 1.5,
    cacheWrite: 18.75,
    output: 75,
    asOf: "2025-10-01",
  },
  "anthropic:claude-opus-4-5": {
    input: 5,
    cachedInput: 0.5,
    cacheWrite: 6.25,
    output: 25,
    asOf: "2025-11-24",
  },
  "anthropic:claude-sonnet-4": {
    input: 3,
    cachedInput: 0.3,
    cacheWrite: 3.75,
    output: 15,
    asOf: "2025-10-01",
  },
  "anthropic:claude-3-7-sonnet": {
    input: 3,
    cachedInput: 0.3,
    cacheWrite: 3.75,
    output: 15,
    asOf: "2025-10-01",
  },
  "anthropic:claude-haiku-4-5": {
    input: 1,
    cachedInput: 0.1,
    cacheWrite: 1.25,
    output: 5,
    asOf: "2025-10-15",
  },
  "anthropic:claude-3-5-haiku": {
    input: 0.8,
    cachedInput: 0.08,
    cacheWrite: 1,
    output: 4,
    asOf: "2025-10-01",
  },
  // Google Gemini API (ai.google.dev/pricing): thinking tokens are billed as output; prompts ≤ 200k tokens.
  "gemini:gemini-2.5-pro": { input: 1.25, cachedInput: 0.125, output: 10, asOf: "2025-10-01" },
  "gemini:gemini-2.5-flash": { input: 0.3, cachedInput: 0.03, output: 2.5, asOf: "2025-10-01" },
  "gemini:gemini-2.5-flash-lite": { input: 0.1, cachedInput: 0.01, output: 0.4, asOf: "2025-10-01" },
  "gemini:gemini-2.0-flash": { input: 0.1, cachedInput: 0.025, output: 0.4, asOf: "2025-10-01" },
  // DeepSeek (api-docs.deepseek.com/quick_start/pricing): V3.2, cache hits at the cached rate.
  "deepseek:deepseek-chat": { input: 0.28, cachedInput: 0.028, output: 0.42, asOf: "2025-09-29" },
  "deepseek:deepseek-reasoner": { input: 0.28, cachedInput: 0.028, output: 0.42, asOf: "2025-09-29" },
  // Alibaba Cloud Model Studio, international (Singapore) endpoint, first tier.
  "dashscope:qwen-max": { input: 1.6, output: 6.4, asOf: "2025-10-01" },
  "dashscope:qwen-plus": { input: 0.4, output: 1.2, asOf: "2025-10-01" },
  "dashscope:qwen-turbo": { input: 0.05, output: 0.2, asOf: "2025-10-01" },
  "dashscope:qwen3-max": { input: 1.2, output: 6, asOf: "2025-10-01" },
  // Ollama runs the model on your own machine: no per-token price (`*` is any model of the provider).
  "ollama:*": { input: 0, output: 0, asOf: "2025-10-01" },
};
