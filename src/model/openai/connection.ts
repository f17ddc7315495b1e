import { httpBaseURL, ollamaHostURL } from "../provider-kit/base-url.js";
import { jsonHeaders } from "../transport/index.js";
import type { TransportOptions } from "../transport/types.js";
import type { NativeStructuredOutput, SamplingOptions } from "../types.js";
import { OPENAI_PRESETS, type OpenAIPreset, type OpenAIPresetName } from "./presets.js";

/** Options shared by OpenAIChatModel and OpenAIResponsesModel. */
export interface OpenAIConnectionOptions extends TransportOptions {
  /** The model name sent to the server. */
  model: string;
  /** An OpenAI-compatible server's defaults (base URL, key variable, reasoning handling). Default "openai". */
  preset?: OpenAIPresetName | OpenAIPreset;
  /** Default: the preset's environment variable (OPENAI_API_KEY for OpenAI). */
  apiKey?: string;
  /** Default: the preset's base URL (https://api.openai.com/v1). */
  baseURL?: string;
  organization?: string;
  project?: string;
  /** "bearer" sends `Authorization: Bearer <key>` (default); "api-key" sends Azure OpenAI's `api-key` header. */
  authHeader?: "bearer" | "api-key";
  /** Query parameters on every URL, e.g. Azure's `{ "api-version": "2024-10-21" }`. */
  query?: Record<string, string>;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Context window in tokens; default from the model-info table. */
  contextSize?: number;
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /**
   * What the server does with `responseFormat` (see NativeStructuredOutput). Default: `"with_tools"`
   * for OpenAI itself, not known for other presets (the agent's `"auto"` mode then uses its tool).
   */
  nativeStructuredOutput?: NativeStructuredOutput;
}

export interface ResolvedConnection {
  preset: OpenAIPreset;
  baseURL: string;
  headers: Record<string, string>;
  credentialHint: string;
  url(path: string): string;
}

export function resolvePreset(preset: OpenAIConnectionOptions["preset"]): OpenAIPreset {
  if (preset === undefined) return OPENAI_PRESETS.openai;
  return typeof preset === "string" ? OPENAI_PRESETS[preset] : preset;
}

function defaultBaseURL(preset: OpenAIPreset): string {
  const host = process.env.OLLAMA_HOST;
  if (preset.provider === "ollama" && host) return `${ollamaHostURL(host, "OLLAMA_HOST")}/v1`;
  return preset.baseURL;
}

/** Base URL, auth headers and the advice given when the key is rejected. */
export function resolveConnection(options: OpenAIConnectionOptions): ResolvedConnection {
  const preset = resolvePreset(options.preset);
  // A given baseURL is checked (an empty or non-http(s) one is an error, never the preset's server).
  const given =
    options.baseURL === undefined ? undefined : httpBaseURL(options.baseURL, "baseURL", preset.provider);
  const baseURL = (given ?? defaultBaseURL(preset)).replace(/\/+$/, "");
  const apiKey = options.apiKey ?? (preset.apiKeyEnv ? process.env[preset.apiKeyEnv] : undefined);
  const auth =
    apiKey === undefined
      ? {}
      : options.authHeader === "api-key"
        ? { "api-key": apiKey }
        : { authorization: `Bearer ${apiKey}` };
  const headers = jsonHeaders({
    accept: "text/event-stream",
    ...auth,
    "openai-organization": options.organization,
    "openai-project": options.project,
    ...options.headers,
  });
  const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : "";
  const credentialHint = `${preset.apiKeyEnv ? `${preset.apiKeyEnv} or ` : ""}the apiKey option${
    apiKey === undefined ? " (no key was set)" : ""
  }`;
  return { preset, baseURL, headers, credentialHint, url: (path) => `${baseURL}${path}${query}` };
}
