import type { EmbeddingModel } from "../embedding.js";
import type { ChatModel } from "../types.js";

/** What a model spec (`provider:model@baseURL`, or the object form) hands a provider's factory. */
export interface ModelSpecSettings {
  model: string;
  /** Already normalised by the definition's `normalizeBaseURL`. */
  baseURL?: string;
  apiKey?: string;
  contextSize?: number;
}

/**
 * A model provider as `modelFromSpec` and `modelFromEnvironment` see it: each provider folder exports
 * one, the built-in ones are listed (by name, loaded on demand) in src/model/providers.ts, a third party registers its own with
 * `registerModelProvider`.
 */
export interface ModelProviderDefinition {
  /** The spec prefix: `acme` in `acme:acme-large`. */
  readonly name: string;
  /** The variable the provider's own SDK reads for its server address, honoured when no baseURL is given. */
  readonly baseURLVariable?: string;
  /**
   * A given base URL (option or variable, named by `field` in errors) in the form the model expects.
   * Default: checked http(s), `/v1` added to a bare host (v1BaseURL).
   */
  normalizeBaseURL?(baseURL: string, field: string): string;
  /** The model; settings the provider does not take are left out, never passed as undefined. */
  create(settings: ModelSpecSettings): ChatModel;
  /** The model `modelFromEnvironment` picks when `when` (the key's variable) is set and no model is named. */
  readonly defaultModel?: { model: string; when: string };
}

/** An embedding provider as `embeddingFromSpec` sees it (the spec grammar and base URLs as for chat models). */
export interface EmbeddingProviderDefinition {
  /** The spec prefix: `openai` in `openai:text-embedding-3-small`. */
  readonly name: string;
  /** Take a given base URL as is, not in the chat provider's form (DashScope's embedding path differs). */
  readonly baseURLAsGiven?: boolean;
  /** The model; `baseURL` and `dimensions` are left out when not given. */
  create(settings: { model: string; dimensions?: number; baseURL?: string }): EmbeddingModel;
}
