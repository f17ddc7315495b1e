import type { BatchedChatStream, ChatChunk } from "../types.js";
import { Attempt, DEFAULT_TIMEOUT_MS } from "./attempt.js";
import { chooseTransport } from "./choose-transport.js";
import type { ErrorContext } from "./errors.js";
import { NdjsonSplitter } from "./ndjson.js";
import { DEFAULT_MAX_RETRIES, nextDelayOrThrow, sleep } from "./retry.js";
import { SseSplitter } from "./sse.js";
import type { BodyReader, StreamRequest } from "./types.js";
import { Utf8Reads } from "./utf8-reads.js";

/**
 * Sends a streaming request; iterate it for the parser's chunks (deltas, then one final chunk), or
 * call `batches()` for the chunks of each network read at once (what the agent does: one await per
 * read instead of one per delta). Transient failures before any chunk reached the caller are retried
 * (backoff, Retry-After, up to `maxRetries`); a failure after output surfaces as is. Throws
 * ProviderError / AgentScopeError (`aborted` when `signal` fires).
 */
export function streamChat(req: StreamRequest): BatchedChatStream {
  return new TransportStream(req);
}

class TransportStream implements BatchedChatStream {
  constructor(private readonly req: StreamRequest) {}

  batches(): AsyncGenerator<readonly ChatChunk[], void, undefined> {
    return streamChatBatches(this.req);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatChunk, void, undefined> {
    for await (const batch of this.batches()) {
      for (let i = 0; i < batch.length; i++) yield batch[i] as ChatChunk;
    }
  }
}

/**
 * The transport loop. Yields the chunks parsed from each network read as one array; the array is
 * reused, so read it before asking for the next batch. The last batch ends with the final chunk.
 */
async function* streamChatBatches(req: StreamRequest): AsyncGenerator<readonly ChatChunk[], void, undefined> {
  const transport = await chooseTransport(req, req.provider);
  const maxRetries = req.maxRetries ?? DEFAULT_MAX_RETRIES;
  const ctx: ErrorContext = {
    provider: req.provider,
    url: req.request.url,
    credentialHint: req.credentialHint,
  };
  const payload = req.request.body instanceof Promise ? await req.request.body : req.request.body;
  const body = req.request.method === "GET" ? undefined : JSON.stringify(payload);
  const out: ChatChunk[] = [];
  for (let attempt = 0; ; attempt++) {
    const parser = req.createParser();
    const run = new Attempt(ctx, req.timeout ?? DEFAULT_TIMEOUT_MS, req.signal);
    const reader = req.format === "sse" ? new SseSplitter(parser, out) : new NdjsonSplitter(parser, out);
    let bodyReader: BodyReader | undefined;
    let emitted = false;
    let finished = false;
    try {
      bodyReader = (await run.send(transport, req.request, body)).body;
      const text = new Utf8Reads();
      for (;;) {
        const { done, value } = await bodyReader.read();
        if (done) break;
        run.touch();
        reader.feed(text.decode(value));
        if (out.length > 0) {
          emitted = true;
          yield out;
          out.length = 0;
        }
      }
      finished = true;
      reader.end();
      out.push(parser.finish());
      yield out;
      out.length = 0;
      return;
    } catch (error) {
      out.length = 0;
      const delay = nextDelayOrThrow(run.classify(error), attempt, maxRetries, emitted);
      await sleep(delay, req.signal, req.provider);
    } finally {
      run.dispose();
      if (!finished) bodyReader?.cancel().catch(() => {});
    }
  }
}
