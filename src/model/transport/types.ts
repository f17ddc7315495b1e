import type { ChatChunk, ChatFinal } from "../types.js";

/** The `fetch` signature the transport calls; inject your own for proxies, custom auth or tests. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options every provider model accepts for its HTTP transport. */
export interface TransportOptions {
  /** Defaults to `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Retries of transient failures (429, 5xx, connection reset, timeout). Default 2. */
  maxRetries?: number;
  /** Milliseconds without a byte from the server (before the headers or between chunks) that count
   * as a timeout. Default 600_000. */
  timeout?: number;
}

/** One HTTP request to a provider. `body` is sent as JSON (serialised once, reused by retries); a
 * Promise is awaited first (e.g. while local files are read), so its failure surfaces on iteration. */
export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** Default POST. */
  method?: "POST" | "GET";
}

/** How the response body frames its events. */
export type WireFormat = "sse" | "ndjson";

/**
 * Maps one provider's wire events to ChatChunks; one instance per attempt.
 * `onEvent` gets each SSE event (data + event name) or NDJSON line (event undefined) and pushes
 * deltas into `out`; it does one cheap shape check and throws an AgentScopeError (use
 * `malformedChunk` / `errorFromBody`) when the chunk is not what the provider documents.
 * `finish` runs when the body ends and returns the final chunk, or throws when the stream was cut
 * before the provider said it was done.
 */
export interface WireParser {
  onEvent(data: string, event: string | undefined, out: ChatChunk[]): void;
  finish(): ChatFinal;
}

/** What `streamChat` needs: where, what, how to read it. */
export interface StreamRequest extends TransportOptions {
  /** Provider family, used in error messages and ErrorInfo.source (`openai`, `anthropic`, ...). */
  provider: string;
  request: HttpRequest;
  format: WireFormat;
  createParser: () => WireParser;
  signal?: AbortSignal;
  /** What to check when the provider rejects the credentials, e.g. "OPENAI_API_KEY or the apiKey option". */
  credentialHint?: string;
}
