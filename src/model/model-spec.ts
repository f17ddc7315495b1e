import { BUILTIN_MODEL_PROVIDERS } from "./providers.js";

/** The built-in providers' names (BUILTIN_MODEL_PROVIDERS in providers.ts), in its order; no provider is loaded. */
export const MODEL_PROVIDERS: readonly string[] = BUILTIN_MODEL_PROVIDERS.map(({ name }) => name);

/**
 * After an `@`, what can only be meant as a server address: a scheme (`ftp:`, `file:`, and the
 * `localhost:` of `localhost:8080`), anything with a `/`, `localhost`, an IPv4 address, a host name
 * (`api.example.com`), or nothing. A version like `claude-3-5-sonnet@20240620` is none of these and
 * stays part of the model name.
 */
const ADDRESS_AFTER_AT =
  /^(?:[a-z][a-z0-9+.-]*:|[^/]*\/|localhost$|\d{1,3}(?:\.\d{1,3}){3}$|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*$|$)/i;

/**
 * Parses `provider:model[@baseUrl]`; the model part may itself contain colons (`ollama:llama3.2:3b`)
 * and `@` (`@http://` or `@https://` starts the base URL; any other address after the last `@`, such
 * as `@ftp://host` or `@localhost:8080`, is an error naming it rather than part of the model name, so
 * the prompt never goes to the provider's public API by mistake).
 */
export function parseModelSpec(spec: string): { provider: string; model: string; baseURL?: string } {
  const at = spec.search(/@https?:\/\//i);
  if (at > 0) return { ...parseModelSpec(spec.slice(0, at)), baseURL: spec.slice(at + 1) };
  const lastAt = spec.lastIndexOf("@");
  if (lastAt > spec.indexOf(":") && ADDRESS_AFTER_AT.test(spec.slice(lastAt + 1))) {
    throw new Error(
      `model "${spec}": the server after @ (${JSON.stringify(spec.slice(lastAt + 1))}) must be an http:// or https:// URL, e.g. openai:gpt-4o-mini@http://127.0.0.1:4010/v1`,
    );
  }
  const colon = spec.indexOf(":");
  if (colon <= 0 || colon === spec.length - 1) {
    throw new Error(
      `model "${spec}" must be written provider:model, e.g. openai:gpt-4o-mini (providers: ${MODEL_PROVIDERS.join(", ")})`,
    );
  }
  return { provider: spec.slice(0, colon), model: spec.slice(colon + 1) };
}
