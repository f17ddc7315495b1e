import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AgentScopeError, ValidationError } from "../../src/message/index.js";
import {
  DashScopeEmbedding,
  GeminiEmbedding,
  OllamaEmbedding,
  OpenAIEmbedding,
} from "../../src/model/embeddings/index.js";
import type { FetchFunction } from "../../src/model/transport/types.js";
import { startWireServer, type WireServer } from "./helpers/wire-server.js";

let mock: LLMock;
let wire: WireServer;
beforeAll(async () => {
  mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
  await mock.start();
  wire = await startWireServer();
});
afterAll(async () => {
  await mock.stop();
  await wire.close();
});
beforeEach(() => {
  wire.requests.length = 0;
});

const JSON_TYPE = { "content-type": "application/json" };
const json = (body: unknown, status = 200) => ({
  status,
  headers: JSON_TYPE,
  frames: [JSON.stringify(body)],
});
const sentBodies = () => wire.requests.map((r) => r.body as Record<string, unknown>);

describe("OpenAIEmbedding (aimock /v1/embeddings)", () => {
  const sent: Array<{ input: string[]; dimensions?: number; encoding_format?: string }> = [];
  const recording: FetchFunction = (url, init) => {
    sent.push(JSON.parse(String(init.body)));
    return fetch(url, init);
  };
  const model = (batchSize?: number) =>
    new OpenAIEmbedding({
      model: "text-embedding-3-small",
      baseURL: `${mock.url}/v1`,
      apiKey: "sk-test",
      dimensions: 8,
      fetch: recording,
      ...(batchSize === undefined ? {} : { batchSize }),
    });

  it("batches, keeps input order, and asks for the configured dimensions", async () => {
    sent.length = 0;
    const texts = ["alpha", "beta", "gamma", "delta", "epsilon"];
    const batched = await model(2).embed(texts);
    expect(sent.map((body) => body.input)).toEqual([["alpha", "beta"], ["gamma", "delta"], ["epsilon"]]);
    expect(sent[0]).toMatchObject({ dimensions: 8, encoding_format: "float" });
    expect(batched.vectors).toHaveLength(5);
    for (const vector of batched.vectors) expect(vector).toHaveLength(8);
    // The same texts in one request give the same vectors: order is kept across batches.
    const whole = await model().embed(texts);
    expect(sent).toHaveLength(4);
    expect(whole.vectors).toEqual(batched.vectors);
    expect(new Set(whole.vectors.map((v) => v.join())).size).toBe(5);
  });

  it("sends nothing for no texts", async () => {
    sent.length = 0;
    expect(await model().embed([])).toEqual({ vectors: [], usage: { inputTokens: 0 } });
    expect(sent).toHaveLength(0);
  });
});

describe("OpenAIEmbedding on the wire", () => {
  const model = () =>
    new OpenAIEmbedding({
      model: "text-embedding-3-large",
      baseURL: `${wire.url}/v1`,
      apiKey: "k",
      dimensions: 3,
    });

  it("orders vectors by `index`, reports usage, and retries a 429", async () => {
    wire.queue(
      {
        status: 429,
        headers: { ...JSON_TYPE, "retry-after": "0" },
        frames: ['{"error":{"message":"Rate limit reached","type":"requests"}}'],
      },
      json({
        object: "list",
        data: [
          { object: "embedding", index: 1, embedding: [0, 1, 0] },
          { object: "embedding", index: 0, embedding: [1, 0, 0] },
        ],
        model: "text-embedding-3-large",
        usage: { prompt_tokens: 5, total_tokens: 5 },
      }),
    );
    const result = await model().embed(["first", "second"]);
    expect(result).toEqual({
      vectors: [
        [1, 0, 0],
        [0, 1, 0],
      ],
      usage: { inputTokens: 5 },
    });
    expect(wire.requests).toHaveLength(2);
    expect(wire.requests[1]?.path).toBe("/v1/embeddings");
    expect(wire.requests[1]?.headers.authorization).toBe("Bearer k");
  });

  it("fails at once on 401 with the key's name", async () => {
    wire.queue(
      json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, 401),
    );
    const error = (await model()
      .embed(["x"])
      .catch((e: unknown) => e)) as AgentScopeError;
    expect(error).toBeInstanceOf(AgentScopeError);
    expect(error.info).toMatchObject({ type: "authentication", status: 401 });
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(wire.requests).toHaveLength(1);
  });

  it("rejects a vector of the wrong length, naming the option", async () => {
    wire.queue(json({ data: [{ index: 0, embedding: [1, 2] }], usage: { prompt_tokens: 1 } }));
    await expect(model().embed(["x"])).rejects.toThrow(/length 2 .*dimensions 3/);
  });

  it("rejects a response with a missing vector", async () => {
    wire.queue(json({ data: [{ index: 0, embedding: [1, 2, 3] }] }));
    await expect(model().embed(["x", "y"])).rejects.toThrow(/2 embeddings/);
  });
});

describe("GeminiEmbedding (batchEmbedContents)", () => {
  it("sends one request per text with taskType and outputDimensionality; usage is estimated", async () => {
    wire.queue(json({ embeddings: [{ values: [0.1, 0.2] }, { values: [0.3, 0.4] }] }));
    const model = new GeminiEmbedding({
      model: "gemini-embedding-001",
      baseURL: `${wire.url}/v1beta`,
      apiKey: "g-key",
      dimensions: 2,
    });
    const result = await model.embed(["what is RAG?", "retrieval augmented generation"], {
      inputType: "query",
    });
    expect(result.vectors).toEqual([
      [0.1, 0.2],
      [0.3, 0.4],
    ]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(wire.requests[0]?.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(wire.requests[0]?.headers["x-goog-api-key"]).toBe("g-key");
    expect(sentBodies()[0]).toEqual({
      requests: [
        {
          model: "models/gemini-embedding-001",
          content: { parts: [{ text: "what is RAG?" }] },
          taskType: "RETRIEVAL_QUERY",
          outputDimensionality: 2,
        },
        {
          model: "models/gemini-embedding-001",
          content: { parts: [{ text: "retrieval augmented generation" }] },
          taskType: "RETRIEVAL_QUERY",
          outputDimensionality: 2,
        },
      ],
    });
  });

  it("knows the native length of gemini-embedding-001 and caps batches at 100", () => {
    expect(new GeminiEmbedding({ model: "gemini-embedding-001", apiKey: "k" }).dimensions).toBe(3072);
    expect(() => new GeminiEmbedding({ model: "gemini-embedding-001", apiKey: "k", batchSize: 101 })).toThrow(
      /batchSize.*1 to 100/,
    );
  });
});

describe("OllamaEmbedding (/api/embed)", () => {
  it("batches `input`, sends `dimensions`, reads prompt_eval_count", async () => {
    wire.queue(
      json({
        model: "nomic-embed-text",
        embeddings: [
          [1, 0],
          [0, 1],
        ],
        total_duration: 14143917,
        load_duration: 1019500,
        prompt_eval_count: 8,
      }),
      json({ model: "nomic-embed-text", embeddings: [[0.5, 0.5]], prompt_eval_count: 3 }),
    );
    const model = new OllamaEmbedding({
      model: "nomic-embed-text",
      host: wire.url,
      dimensions: 2,
      batchSize: 2,
    });
    const result = await model.embed(["a", "b", "c"]);
    expect(result).toEqual({
      vectors: [
        [1, 0],
        [0, 1],
        [0.5, 0.5],
      ],
      usage: { inputTokens: 11 },
    });
    expect(wire.requests.map((r) => r.path)).toEqual(["/api/embed", "/api/embed"]);
    expect(sentBodies()).toEqual([
      { model: "nomic-embed-text", input: ["a", "b"], dimensions: 2 },
      { model: "nomic-embed-text", input: ["c"], dimensions: 2 },
    ]);
  });

  it("asks for `dimensions` when the model's length is not known", () => {
    expect(() => new OllamaEmbedding({ model: "my-embedder" })).toThrow(ValidationError);
    expect(() => new OllamaEmbedding({ model: "my-embedder" })).toThrow(/pass `dimensions`/);
    expect(new OllamaEmbedding({ model: "nomic-embed-text:latest" }).dimensions).toBe(768);
  });
});

describe("DashScopeEmbedding (text-embedding)", () => {
  it("sends texts in batches of 10 with dimension and text_type, orders by text_index, sums usage", async () => {
    const reply = (count: number, tokens: number) =>
      json({
        output: {
          embeddings: Array.from({ length: count }, (_, i) => ({
            text_index: count - 1 - i,
            embedding: [count - 1 - i, 0],
          })),
        },
        usage: { total_tokens: tokens },
        request_id: "b5e2d1a4-1c1e-9d4f-a7b3-0e6c2f1d8a90",
      });
    wire.queue(reply(10, 20), reply(2, 4));
    const model = new DashScopeEmbedding({
      model: "text-embedding-v4",
      baseURL: wire.url,
      apiKey: "sk-ds",
      dimensions: 2,
    });
    const texts = Array.from({ length: 12 }, (_, i) => `text ${i}`);
    const result = await model.embed(texts, { inputType: "document" });
    expect(result.usage).toEqual({ inputTokens: 24 });
    expect(result.vectors.map((v) => v[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1]);
    expect(wire.requests[0]?.path).toBe("/services/embeddings/text-embedding/text-embedding");
    expect(wire.requests[0]?.headers.authorization).toBe("Bearer sk-ds");
    expect(sentBodies()[1]).toEqual({
      model: "text-embedding-v4",
      input: { texts: ["text 10", "text 11"] },
      parameters: { dimension: 2, text_type: "document" },
    });
  });

  it("rejects a non-string input, naming it", async () => {
    const model = new DashScopeEmbedding({ model: "text-embedding-v4", baseURL: wire.url, apiKey: "k" });
    await expect(model.embed(["ok", 42 as unknown as string])).rejects.toThrow(/texts\[1\]/);
    expect(wire.requests).toHaveLength(0);
  });
});
