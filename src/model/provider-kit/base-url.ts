import { AgentScopeError } from "../../message/index.js";

/**
 * A provider's server address, refused unless it is an absolute http:// or https:// URL with a host.
 * `file:`, `javascript:`, `ftp:`, a bare `localhost:8080` (which parses as the scheme `localhost:`)
 * and the empty string are errors naming the field and the value: a base URL the provider cannot use
 * must never fall back to the provider's public API with the prompt.
 */
export function httpBaseURL(value: string, field: string, provider: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "") return value;
  throw new AgentScopeError({
    type: "invalid_request",
    source: provider,
    message: `${provider}: ${field} ${JSON.stringify(value)} is not an http:// or https:// URL (write e.g. http://127.0.0.1:4010/v1)`,
  });
}

/** A scheme that is not a port: `ftp:`, `file:`, `javascript:` (but not the `localhost:` of `localhost:11434`). */
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i;

/**
 * An Ollama host in the forms OLLAMA_HOST takes (`localhost:11434`, `0.0.0.0:11434`, `http://...`):
 * a value without a scheme gets `http://`; another scheme, or an empty value, is an error.
 */
export function ollamaHostURL(value: string, field: string): string {
  if (/^https?:\/\//i.test(value)) return httpBaseURL(value, field, "ollama");
  if (value === "" || value.includes("://") || OTHER_SCHEME.test(value))
    return httpBaseURL(value, field, "ollama");
  httpBaseURL(`http://${value}`, field, "ollama");
  return `http://${value}`;
}

/** A checked base URL (see httpBaseURL) without trailing slashes, and its path. */
function checkedBase(value: string, field: string, provider: string): { base: string; path: string } {
  const url = new URL(httpBaseURL(value, field, provider));
  const path = url.pathname.replace(/\/+$/, "");
  return { base: `${url.origin}${path}${url.search}`, path };
}

/** A checked base URL as given, trailing slashes trimmed. */
export function plainBaseURL(value: string, field: string, provider: string): string {
  return checkedBase(value, field, provider).base;
}

/** OpenAI-style servers take `/v1`: added to a bare host (`http://h:1` → `http://h:1/v1`); a path stays. */
export function v1BaseURL(value: string, field: string, provider: string): string {
  const { base, path } = checkedBase(value, field, provider);
  return path === "" ? `${base}/v1` : base;
}

/** For paths that add `/v1` themselves (Anthropic's): a trailing `/v1` is dropped. */
export function unversionedBaseURL(value: string, field: string, provider: string): string {
  const { base, path } = checkedBase(value, field, provider);
  return path.endsWith("/v1") ? base.slice(0, base.length - 3) : base;
}

/** For APIs that need a version segment (Gemini's): `version` is added when the path ends in none. */
export function versionedBaseURL(value: string, field: string, provider: string, version = "v1beta"): string {
  const { base, path } = checkedBase(value, field, provider);
  return /\/v\d+(beta|alpha)?\d*$/.test(path) ? base : `${base}/${version}`;
}
