/** How an OpenAI-compatible server differs from api.openai.com. */
export interface OpenAIPreset {
  /** Provider id stamped on thinking blocks and errors. */
  provider: string;
  baseURL: string;
  /** Environment variable holding the key; none when the server needs no key. */
  apiKeyEnv?: string;
  /** Which request field caps the output. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Send the provider's own `reasoning_content` back on later turns (DeepSeek, DashScope, Moonshot). */
  reasoningRoundTrip: boolean;
}

export const OPENAI_PRESETS = {
  openai: {
    provider: "openai",
    baseURL: "https://api.openai.com/v1",
    apiKeyEnv: "OPENAI_API_KEY",
    maxTokensField: "max_completion_tokens",
    reasoningRoundTrip: false,
  },
  deepseek: {
    provider: "deepseek",
    baseURL: "https://api.deepseek.com/v1",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: true,
  },
  dashscope: {
    provider: "dashscope",
    baseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    apiKeyEnv: "DASHSCOPE_API_KEY",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: true,
  },
  moonshot: {
    provider: "moonshot",
    baseURL: "https://api.moonshot.ai/v1",
    apiKeyEnv: "MOONSHOT_API_KEY",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: true,
  },
  vllm: {
    provider: "vllm",
    baseURL: "http://localhost:8000/v1",
    apiKeyEnv: "VLLM_API_KEY",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: false,
  },
  lmstudio: {
    provider: "lmstudio",
    baseURL: "http://localhost:1234/v1",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: false,
  },
  ollama: {
    provider: "ollama",
    baseURL: "http://localhost:11434/v1",
    maxTokensField: "max_tokens",
    reasoningRoundTrip: false,
  },
} as const satisfies Record<string, OpenAIPreset>;

export type OpenAIPresetName = keyof typeof OPENAI_PRESETS;

/**
 * The presets that are providers under their own names (`deepseek:deepseek-chat`, `vllm:...`): all but
 * `openai` and those whose name is a native provider's (ollama, dashscope: their native APIs win).
 */
export const OPENAI_PRESET_PROVIDERS: readonly OpenAIPresetName[] = (
  Object.keys(OPENAI_PRESETS) as OpenAIPresetName[]
).filter((name) => name !== "openai" && name !== "ollama" && name !== "dashscope");
