/**
 * Embedding models: text (and, where a provider supports it, images) in, vectors out. Provider
 * implementations live beside the chat models and share their transport (retries, typed errors).
 */

/** What one `embed` call cost, as the provider reports it (estimated when it does not). */
export interface EmbeddingUsage {
  inputTokens: number;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /**
   * What the texts are for, on providers that embed queries and documents differently (Gemini
   * `taskType` RETRIEVAL_QUERY / RETRIEVAL_DOCUMENT, DashScope `text_type`); others ignore it.
   */
  inputType?: "query" | "document";
}

export interface EmbeddingResult {
  /** One vector per input, in input order, each of length `dimensions`. */
  vectors: number[][];
  usage: EmbeddingUsage;
}

/**
 * An embedding model. `embed` must return exactly one vector per input, in order, and throw an
 * AgentScopeError (with an ErrorInfo kind) on failure; batching into provider-sized requests and
 * retries of transient failures happen inside the model.
 */
export interface EmbeddingModel {
  /** The model name sent to the provider (`text-embedding-3-small`, ...). */
  readonly name: string;
  /** Provider family (`openai`, `gemini`, `ollama`, `dashscope`, `hash`, ...). */
  readonly provider: string;
  /** Length of every vector this model returns. */
  readonly dimensions: number;
  embed(texts: readonly string[], opts?: EmbedOptions): Promise<EmbeddingResult>;
}
