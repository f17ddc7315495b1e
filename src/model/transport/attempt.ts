import { AgentScopeError } from "../../message/index.js";
import {
  abortedError,
  connectionError,
  type ErrorContext,
  errorFromResponse,
  timeoutError,
} from "./errors.js";
import type { BodyReader, HttpRequest, HttpResponse, HttpTransport } from "./types.js";

export const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * One HTTP attempt: its own AbortController, linked to the caller's signal and to an idle timer
 * that `touch()` re-arms on every byte received. `classify` turns whatever was thrown into the
 * error the caller should see (aborted, timeout, connection, or the AgentScopeError as is).
 */
export class Attempt {
  readonly controller = new AbortController();
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onOuterAbort = () => this.controller.abort();

  constructor(
    readonly ctx: ErrorContext,
    readonly timeoutMs: number,
    readonly outer: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, timeoutMs);
    if (outer?.aborted) this.controller.abort();
    else outer?.addEventListener("abort", this.onOuterAbort, { once: true });
  }

  touch(): void {
    this.timer.refresh();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  classify(error: unknown): unknown {
    if (this.outer?.aborted) return abortedError(this.ctx.provider, this.outer.reason);
    if (this.timedOut) return timeoutError(this.timeoutMs, this.ctx);
    if (AgentScopeError.isInstance(error)) return error;
    return connectionError(error, this.ctx);
  }

  /** Sends the request; resolves with a 2xx response or throws the mapped HTTP error. */
  async send(
    transport: HttpTransport,
    request: HttpRequest,
    body: string | undefined,
  ): Promise<HttpResponse> {
    const response = await transport(request.url, {
      method: request.method ?? "POST",
      headers: request.headers,
      body,
      signal: this.controller.signal,
    });
    this.touch();
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readText(response.body).catch(() => "");
    throw errorFromResponse(response.status, response.headers, text, this.ctx);
  }
}

/** The whole body as UTF-8 text. */
export async function readText(body: BodyReader): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await body.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/** Headers every JSON request carries. */
export function jsonHeaders(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) headers[key] = value;
  return headers;
}
