import { ConnectionError, serviceErrorOf } from "./errors.js";
import { keyOf, pause, retryAfterMs } from "./write-retry.js";

const IDEMPOTENT = new Set(["GET", "HEAD", "DELETE"]);

export interface TransportOptions {
  baseUrl?: string;
  token?: string | (() => string | undefined);
  fetch?: typeof fetch;
}

/**
 * The client's HTTP: the base URL, the bearer token, one JSON request (retried when that starts
 * nothing twice), a non-2xx answer as ServiceError and an unreachable service as ConnectionError.
 */
export class ClientTransport {
  readonly baseUrl: string;
  readonly #token: TransportOptions["token"];
  readonly fetch: typeof fetch;

  constructor(options: TransportOptions) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    if (this.baseUrl !== "" && !/^https?:\/\//.test(this.baseUrl))
      throw new TypeError(`baseUrl: "${options.baseUrl}" is not an http(s) URL`);
    this.#token = options.token;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async request<T>(
    method: string,
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    idempotencyKey?: string,
    bytes = false,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json", ...this.auth() };
    if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
    const init: RequestInit = { method, headers };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (signal) init.signal = signal;
    const response = await this.fetchOk(method, path, init);
    if (response.status === 204) return undefined as T;
    // JSON Lines (application/x-ndjson) is bytes too: only a JSON document is parsed
    if (bytes && !/^application\/(?:[\w.-]+\+)?json\b/.test(response.headers.get("content-type") ?? ""))
      return (await response.blob()) as T;
    return (await response.json()) as T;
  }

  /** Sends a request; a non-2xx answer throws ServiceError, an unreachable service ConnectionError. */
  async fetchOk(method: string, path: string, init: RequestInit): Promise<Response> {
    const label = `${method} ${path.split("?")[0]}`;
    let response: Response | undefined;
    // A request that changes nothing is tried twice: the first may meet a kept-alive connection
    // to a server that has since restarted.
    for (let attempt = 1; response === undefined; attempt++) {
      try {
        response = await this.fetch(this.baseUrl + path, init);
        // A keyed write the service could not take now (503: shutting down, overloaded) is sent
        // again with the same key, after its Retry-After (at most 2 s), up to three tries in all.
        if (response.status === 503 && attempt < 3 && keyOf(init) !== undefined) {
          await response.body?.cancel().catch(() => {});
          await pause(retryAfterMs(response), init.signal);
          response = undefined;
        }
      } catch (error) {
        if (init.signal?.aborted) throw error;
        // So is a write with an Idempotency-Key: the service answers a repeat with the first answer.
        if (attempt < 2 && (IDEMPOTENT.has(method) || keyOf(init) !== undefined)) continue;
        throw new ConnectionError(`${label}: cannot reach the service: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    if (!response.ok) throw await serviceErrorOf(response, label);
    return response;
  }

  auth(): Record<string, string> {
    const token = typeof this.#token === "function" ? this.#token() : this.#token;
    return token ? { authorization: `Bearer ${token}` } : {};
  }
}

/** A fresh Idempotency-Key: a UUID where the platform has one (not on insecure browser origins), else 128 random bits. */
export function requestKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
