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

/** Where a provider's key and base URL come from when the options do not give them. */
export interface EndpointDefaults {
  /** The provider's name in messages (`Anthropic`). */
  label: string;
  /** The variable holding the key (`ANTHROPIC_API_KEY`). */
  keyEnv: string;
  /** A second variable read when the first is not set (Gemini's GOOGLE_API_KEY). */
  keyEnvFallback?: string;
  /** The variable holding the base URL (`ANTHROPIC_BASE_URL`). */
  urlEnv: string;
  /** The public endpoint. */
  url: string;
}

/** The built-in native-API providers' defaults. */
const ENDPOINTS = {
  anthropic: {
    label: "Anthropic",
    keyEnv: "ANTHROPIC_API_KEY",
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
    urlEnv: "DASHSCOPE_BASE_URL",
    url: "https://dashscope.aliyuncs.com/api/v1",
  },
} as const satisfies Record<string, EndpointDefaults>;

/**
 * The API key and base URL for a chat or embedding request: the options, else the provider's
 * environment variables (read per request), else the public endpoint. No key: an authentication error;
 * a base URL that is not http(s): an error naming it (see baseURLSetting). `provider` is a built-in
 * provider's name or a third-party provider's defaults (its name: `label` in lower case).
 */
export function providerEndpoint(
  provider: keyof typeof ENDPOINTS | EndpointDefaults,
  options: { apiKey?: string; baseURL?: string },
): { apiKey: string; baseURL: string } {
  const e: EndpointDefaults = typeof provider === "string" ? ENDPOINTS[provider] : provider;
  const name = typeof provider === "string" ? provider : provider.label.toLowerCase();
  const fallbackKey = e.keyEnvFallback === undefined ? undefined : process.env[e.keyEnvFallback];
  return {
    apiKey: requireApiKey(setting(options.apiKey, e.keyEnv, fallbackKey), e.label, e.keyEnv),
    baseURL: baseURLSetting(options.baseURL, e.urlEnv, e.url, name),
  };
}
