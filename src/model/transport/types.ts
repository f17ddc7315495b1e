import type { ChatChunk, ChatFinal } from "../types.js";

/** The `fetch` signature the transport calls; inject your own for proxies, custom auth or tests. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Response header lookup by (case-insensitive) name; a WHATWG `Headers` is one. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** One read of a response body: bytes, or done. */
export type BodyRead = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/**
 * A response body read chunk by chunk (a fetch body's `getReader()` is one). `read` rejects when the
 * connection fails mid-body; `cancel` releases the connection when the caller stops early (never throws).
 */
export interface BodyReader {
  read(): Promise<BodyRead>;
  cancel(reason?: unknown): Promise<void>;
}

/** What a transport hands back once the status line and headers arrived (any status: the caller maps errors). */
export interface HttpResponse {
  status: number;
  headers: HeaderLookup;
  body: BodyReader;
}

/** One request as a transport sends it: the JSON body already serialised. */
export interface TransportRequest {
  method: "POST" | "GET";
  headers: Record<string, string>;
  body: string | undefined;
  /** Aborting it must stop the request: reject the pending send or read, and free the connection. */
  signal: AbortSignal;
}

/**
 * Sends one HTTP request and resolves when the headers arrive. Rejects (with anything: the caller
 * classifies it as aborted, timeout or connection) when the request cannot be sent or `signal` fires.
 * A 4xx/5xx status resolves like a 2xx: the caller maps it to a typed error.
 */
export type HttpTransport = (url: string, request: TransportRequest) => Promise<HttpResponse>;

/**
 * Which HTTP client a model uses: `"fetch"` (`globalThis.fetch`, or the `fetch` option), `"node"`
 * (`node:http`/`node:https` with a keep-alive agent; Node only), or your own `HttpTransport`.
 */
export type TransportChoice = "fetch" | "node" | HttpTransport;

/** Options every provider model accepts for its HTTP transport. */
export interface TransportOptions {
  /**
   * The HTTP client. Default: `"fetch"` when the `fetch` option is given, else the environment
   * variable `AGENTSCOPE_TRANSPORT` (`fetch` or `node`), else the runtime's default (docs/model-transport.md).
   */
  transport?: TransportChoice;
  /** The `fetch` the fetch transport calls. Defaults to `globalThis.fetch`. */
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
