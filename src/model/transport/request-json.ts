import { Attempt, DEFAULT_TIMEOUT_MS, readText } from "./attempt.js";
import { chooseTransport } from "./choose-transport.js";
import type { ErrorContext } from "./errors.js";
import { DEFAULT_MAX_RETRIES, nextDelayOrThrow, sleep } from "./retry.js";
import type { HttpRequest, TransportOptions } from "./types.js";

export interface JsonRequest extends TransportOptions {
  provider: string;
  request: HttpRequest;
  signal?: AbortSignal;
  credentialHint?: string;
}

/** A non-streaming JSON call (token counting, model info) with the same timeouts, errors and retries. */
export async function requestJson(req: JsonRequest): Promise<unknown> {
  const transport = await chooseTransport(req, req.provider);
  const maxRetries = req.maxRetries ?? DEFAULT_MAX_RETRIES;
  const ctx: ErrorContext = {
    provider: req.provider,
    url: req.request.url,
    credentialHint: req.credentialHint,
  };
  const body = req.request.method === "GET" ? undefined : JSON.stringify(req.request.body);
  for (let attempt = 0; ; attempt++) {
    const run = new Attempt(ctx, req.timeout ?? DEFAULT_TIMEOUT_MS, req.signal);
    try {
      const response = await run.send(transport, req.request, body);
      return JSON.parse(await readText(response.body));
    } catch (error) {
      await sleep(nextDelayOrThrow(run.classify(error), attempt, maxRetries), req.signal, req.provider);
    } finally {
      run.dispose();
    }
  }
}
