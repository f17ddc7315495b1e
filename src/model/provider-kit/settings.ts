import { AgentScopeError } from "../../message/index.js";

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

/** `base` + `path` with exactly one slash between them. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.endsWith("/") ? base.slice(0, -1) : base;
  return `${trimmed}${path.startsWith("/") ? path : `/${path}`}`;
}
