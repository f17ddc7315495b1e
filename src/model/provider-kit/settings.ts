import { AgentScopeError } from "../../message/index.js";
import { httpBaseURL } from "./base-url.js";

/** The option when given, else the environment variable, else the fallback. */
export function setting(option: string | undefined, envName: string, fallback?: string): string | undefined {
  if (option !== undefined && option !== "") return option;
  const fromEnv = process.env[envName];
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : fallback;
}

/** The API key, or an authentication error that names where to put it. */
export function requireApiKey(key: string | undefined, provider: string, envName: string): string {
  if (key !== undefined) return key;
  throw new AgentScopeError({
    type: "authentication",
    message: `no ${provider} API key: pass the apiKey option or set ${envName}.`,
    source: provider,
  });
}

/**
 * A base URL: the option when given (checked: an empty or non-http(s) value is an error naming the
 * option, never a fallback), else the environment variable when set (checked, named), else the
 * public endpoint.
 */
export function baseURLSetting(
  option: string | undefined,
  envName: string,
  fallback: string,
  provider: string,
): string {
  if (option !== undefined) return httpBaseURL(option, "baseURL", provider);
  const fromEnv = process.env[envName];
  return fromEnv !== undefined && fromEnv !== "" ? httpBaseURL(fromEnv, envName, provider) : fallback;
}

/** `base` + `path` with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.endsWith("/") ? base.slice(0, -1) : base;
  return `${trimmed}${path.startsWith("/") ? path : `/${path}`}`;
}

/** Where a native-API provider's key and base URL come from when the options do not give them. */
const ENDPOINTS = {
  anthropic: {
    label: "Anthropic",
    keyEnv: "ANTHROPIC_API_KEY",
    keyEnvFallback: undefined,
    urlEnv: "ANTHROPIC_BASE_URL",
    url: "https://api.anthropic.com",
  },
  gemini: {
    label: "Gemini",
    keyEnv: "GEMINI_API_KEY",
    keyEnvFallback: "GOOGLE_API_KEY",
    urlEnv: "GEMINI_BASE_URL",
    url: "https://generativelanguage.googleapis.com/v1beta",
  },
  dashscope: {
    label: "DashScope",
    keyEnv: "DASHSCOPE_API_KEY",
    keyEnvFallback: undefined,
    urlEnv: "DASHSCOPE_BASE_URL",
    url: "https://dashscope.aliyuncs.com/api/v1",
  },
} as const;

/**
 * The API key and base URL for a chat or embedding request: the options, else the provider's
 * environment variables (read per request), else the public endpoint. No key: an authentication error;
 * a base URL that is not http(s): an error naming it (see baseURLSetting).
 */
export function providerEndpoint(
  provider: keyof typeof ENDPOINTS,
  options: { apiKey?: string; baseURL?: string },
): { apiKey: string; baseURL: string } {
  const e = ENDPOINTS[provider];
  const fallbackKey = e.keyEnvFallback === undefined ? undefined : process.env[e.keyEnvFallback];
  return {
    apiKey: requireApiKey(setting(options.apiKey, e.keyEnv, fallbackKey), e.label, e.keyEnv),
    baseURL: baseURLSetting(options.baseURL, e.urlEnv, e.url, provider),
  };
}
