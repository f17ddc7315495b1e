import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentScopeError } from "../../src/message/index.js";
import {
  backoffDelay,
  createNdjsonReader,
  createSseReader,
  errorFromResponse,
  malformedChunk,
  ProviderError,
  requestJson,
  type StreamRequest,
  streamChat,
  streamCut,
  type WireParser,
} from "../../src/model/transport/index.js";
import type { ChatChunk, ChatFinal } from "../../src/model/types.js";
import { TRANSPORTS, type TransportCase } from "./helpers/transports.js";
import { sse, startWireServer, type WireServer } from "./helpers/wire-server.js";

/** A toy wire: `{"t": "..."}` is a text delta, `[DONE]` ends the stream. */
function toyParser(): WireParser {
  let text = "";
  let done = false;
  return {
    onEvent(data, _event, out) {
      if (data === "[DONE]") {
        done = true;
        return;
      }
      const chunk = JSON.parse(data) as { t?: string };
      if (typeof chunk.t !== "string") throw malformedChunk("toy", "a `t` string", data);
      text += chunk.t;
      out.push({ type: "text", blockId: "b1", delta: chunk.t });
    },
    finish(): ChatFinal {
      if (!done) throw streamCut("toy");
      return {
        type: "final",
        content: [{ type: "text", id: "b1", text }],
        usage: { inputTokens: 0, outputTokens: 0 },
        stopReason: "stop",
      };
    },
  };
}

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function requestOn(transport: TransportCase | undefined, overrides: Partial<StreamRequest>): StreamRequest {
  return {
    transport: transport?.choice,
    provider: "toy",
    request: { url: `${server.url}/chat`, headers: { "content-type": "application/json" }, body: { q: 1 } },
    format: "sse",
    createParser: toyParser,
    credentialHint: "TOY_API_KEY",
    ...overrides,
  };
}

async function collect(req: StreamRequest): Promise<{ chunks: ChatChunk[]; error?: unknown }> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of streamChat(req)) chunks.push(chunk);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

const ok = [sse({ t: "Hel" }), sse({ t: "lo" }), sse("[DONE]")];

describe.each(TRANSPORTS)("streamChat over $name", (transport) => {
  const request = (overrides: Partial<StreamRequest> = {}) => requestOn(transport, overrides);
  it("streams deltas then the final chunk and sends the JSON body once serialised", async () => {
    server.queue({ frames: ok });
    const { chunks, error } = await collect(request());
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.type)).toEqual(["text", "text", "final"]);
    expect(server.requests[0]?.body).toEqual({ q: 1 });
    expect(server.requests[0]?.method).toBe("POST");
  });

  it("retries a 429 honouring Retry-After, then succeeds", async () => {
    server.queue(
      {
        status: 429,
        headers: { "retry-after": "1", "content-type": "application/json" },
        frames: ['{"error":{"message":"slow down"}}'],
      },
      { frames: ok },
    );
    const started = Date.now();
    const { chunks, error } = await collect(request());
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    // Waited the server's 1 s, not the first backoff (at most 500 ms); a timer never fires early,
    // so a busy machine cannot make this fail.
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(chunks.at(-1)?.type).toBe("final");
  });

  it("gives up after maxRetries on 5xx and says how many retries were spent", async () => {
    server.queue({
      status: 503,
      headers: { "retry-after": "0" },
      frames: ['{"error":{"message":"overloaded"}}'],
    });
    const { error } = await collect(request({ maxRetries: 1 }));
    expect(server.requests).toHaveLength(2);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).info).toMatchObject({ type: "upstream", status: 503, source: "toy" });
    expect((error as Error).message).toMatch(/overloaded.*gave up after 1 retries/);
  });

  it("fails at once on 401 with a message naming the key to check", async () => {
    server.queue({ status: 401, frames: ['{"error":{"message":"Incorrect API key"}}'] });
    const { error } = await collect(request());
    expect(server.requests).toHaveLength(1);
    expect((error as AgentScopeError).info.type).toBe("authentication");
    expect((error as Error).message).toContain("Incorrect API key");
    expect((error as Error).message).toContain("TOY_API_KEY");
  });

  it("does not retry a 429 for an exhausted quota", async () => {
    server.queue({
      status: 429,
      headers: { "retry-after": "0" },
      frames: ['{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}'],
    });
    const { error } = await collect(request());
    expect(server.requests).toHaveLength(1);
    expect((error as AgentScopeError).info.type).toBe("rate_limit");
  });

  it("retries a stream cut before any output", async () => {
    server.queue({ frames: [": keep-alive\n\n"], cut: true }, { frames: ok });
    const { chunks, error } = await collect(request({ maxRetries: 1 }));
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(chunks.filter((c) => c.type === "text")).toHaveLength(2);
  });

  it("surfaces a stream cut after output without retrying", async () => {
    server.queue({ frames: [sse({ t: "Hel" })], cut: true });
    const { chunks, error } = await collect(request());
    expect(chunks).toEqual([{ type: "text", blockId: "b1", delta: "Hel" }]);
    expect(server.requests).toHaveLength(1);
    expect((error as AgentScopeError).info.type).toBe("connection");
  });

  it("treats a body that ends without the end marker as a cut stream", async () => {
    server.queue({ frames: [sse({ t: "Hel" })] });
    const { error } = await collect(request());
    expect((error as Error).message).toMatch(/ended before the response was complete/);
  });

  it("times out when the server sends nothing, then retries", async () => {
    server.queue({ silent: true }, { frames: ok });
    const { error, chunks } = await collect(request({ timeout: 150, maxRetries: 1 }));
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(chunks.at(-1)?.type).toBe("final");
  });

  it("reports a timeout with advice when retries are spent", async () => {
    server.queue({ silent: true });
    const { error } = await collect(request({ timeout: 100, maxRetries: 0 }));
    expect((error as AgentScopeError).info.type).toBe("timeout");
    expect((error as Error).message).toMatch(/sent nothing for 100 ms.*timeout/);
  });

  it("aborts mid-stream with an aborted error", async () => {
    server.queue({ frames: [sse({ t: "Hel" })], hang: true });
    const controller = new AbortController();
    const chunks: ChatChunk[] = [];
    const run = async () => {
      for await (const chunk of streamChat(request({ signal: controller.signal }))) {
        chunks.push(chunk);
        controller.abort();
      }
    };
    const error = await run().catch((e: unknown) => e);
    expect(chunks).toHaveLength(1);
    expect((error as AgentScopeError).info.type).toBe("aborted");
  });

  it("maps an unreachable server to a connection error", async () => {
    const { error } = await collect(
      request({ maxRetries: 0, request: { url: "http://127.0.0.1:1/x", headers: {}, body: {} } }),
    );
    expect((error as AgentScopeError).info.type).toBe("connection");
    expect((error as Error).message).toMatch(/could not reach toy at http:\/\/127.0.0.1:1\/x/);
  });

  it("does not retry a malformed chunk", async () => {
    server.queue({ frames: [sse({ nope: 1 })] });
    const { error } = await collect(request());
    expect(server.requests).toHaveLength(1);
    expect((error as Error).message).toMatch(/toy sent a stream chunk without a `t` string: \{"nope":1\}/);
  });

  it("reads NDJSON", async () => {
    server.queue({ frames: ['{"t":"a"}\n{"t"', ':"b"}\n', "[DONE]"] });
    const { chunks, error } = await collect(request({ format: "ndjson" }));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => (c.type === "text" ? c.delta : c.type))).toEqual(["a", "b", "final"]);
  });
});

describe.each(TRANSPORTS)("requestJson over $name", (transport) => {
  it("returns the JSON body after retrying a 500", async () => {
    server.queue(
      { status: 500, headers: { "retry-after-ms": "1" }, frames: ["oops"] },
      { headers: { "content-type": "application/json" }, frames: ['{"ok":true}'] },
    );
    const body = await requestJson({
      transport: transport.choice,
      provider: "toy",
      request: { url: `${server.url}/x`, headers: {}, body: {} },
    });
    expect(body).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });
});

describe("the fetch option", () => {
  it("calls the injected fetch", async () => {
    server.queue({ frames: ok });
    const urls: string[] = [];
    const { error } = await collect(
      requestOn(undefined, {
        fetch: (url, init) => {
          urls.push(url);
          return fetch(url, init);
        },
      }),
    );
    expect(error).toBeUndefined();
    expect(urls).toEqual([`${server.url}/chat`]);
  });
});

describe("readers", () => {
  it("SSE joins multi-line data and passes event names", () => {
    const seen: Array<[string, string | undefined]> = [];
    const reader = createSseReader((data, event) => seen.push([data, event]));
    reader.feed("event: a\ndata: 1\nda");
    reader.feed("ta: 2\n\n: comment\n\ndata: x\n\n");
    reader.end();
    expect(seen).toEqual([
      ["1\n2", "a"],
      ["x", undefined],
    ]);
  });

  it("NDJSON flushes the last line without a newline", () => {
    const seen: string[] = [];
    const reader = createNdjsonReader((data) => seen.push(data));
    reader.feed('{"a":1}\n\n{"b"');
    reader.feed(":2}");
    reader.end();
    expect(seen).toEqual(['{"a":1}', '{"b":2}']);
  });
});

describe("error mapping and backoff", () => {
  const ctx = { provider: "p", url: "http://h/v1", credentialHint: "P_KEY" };
  it.each([
    [401, "authentication"],
    [403, "permission"],
    [404, "not_found"],
    [400, "invalid_request"],
    [422, "invalid_request"],
    [429, "rate_limit"],
    [500, "upstream"],
    [503, "upstream"],
    [529, "upstream"],
  ] as const)("maps HTTP %i to %s", (status, type) => {
    const error = errorFromResponse(status, new Headers(), '{"error":{"message":"m"}}', ctx);
    expect(error.info).toEqual({ type, status, source: "p", message: expect.stringContaining("HTTP") });
    expect(error.retryable).toBe(["rate_limit", "upstream"].includes(type));
  });

  it("says what to check for a 404", () => {
    const error = errorFromResponse(404, new Headers(), "not here", ctx);
    expect(error.message).toContain("Check the model name and the base URL (http://h/v1)");
  });

  it("honours Retry-After in seconds and backs off exponentially otherwise", () => {
    const error = errorFromResponse(429, new Headers({ "retry-after": "2" }), "", ctx);
    expect(backoffDelay(0, error)).toBe(2000);
    const plain = errorFromResponse(500, new Headers(), "", ctx);
    expect(backoffDelay(0, plain)).toBeGreaterThan(370);
    expect(backoffDelay(0, plain)).toBeLessThanOrEqual(500);
    expect(backoffDelay(2, plain)).toBeGreaterThan(1400);
    expect(backoffDelay(10, plain)).toBeLessThanOrEqual(8000);
  });
});
