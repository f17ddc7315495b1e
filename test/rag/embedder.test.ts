import { describe, expect, it } from "vitest";
import { AgentScopeError } from "../../src/message/index.js";
import type { EmbeddingModel } from "../../src/model/embedding.js";
import { Embedder, InMemoryEmbeddingCache } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";

/** A HashEmbedding that fails its first `failures` calls with the given kind, and tracks concurrency. */
function flakyModel(failures: number, type: "rate_limit" | "authentication") {
  const inner = new HashEmbedding({ dimensions: 8 });
  const state = { calls: 0, inFlight: 0, maxInFlight: 0 };
  const model: EmbeddingModel = {
    name: "flaky",
    provider: "test",
    dimensions: 8,
    async embed(texts) {
      state.calls++;
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await new Promise((r) => setImmediate(r));
      state.inFlight--;
      if (state.calls <= failures) throw new AgentScopeError({ type, message: `${type} failure` });
      return inner.embed(texts);
    },
  };
  return { model, state };
}

describe("Embedder", () => {
  it("batches, limits concurrency and keeps input order", async () => {
    const { model, state } = flakyModel(0, "rate_limit");
    const embedder = new Embedder(model, { batchSize: 2, concurrency: 2, cache: false });
    const texts = ["a", "b", "c", "d", "e", "f", "g"];
    const vectors = await embedder.embed(texts);
    expect(state.calls).toBe(4);
    expect(state.maxInFlight).toBe(2);
    const reference = new HashEmbedding({ dimensions: 8 });
    expect(vectors).toEqual(texts.map((t) => reference.vectorOf(t)));
    expect(embedder.usage.requests).toBe(4);
    expect(embedder.usage.inputTokens).toBe(7);
  });

  it("serves repeated texts from the cache keyed by model and text", async () => {
    const model = new HashEmbedding({ dimensions: 8 });
    const cache = new InMemoryEmbeddingCache();
    const embedder = new Embedder(model, { cache });
    await embedder.embed(["x", "y"]);
    await embedder.embed(["y", "z"]);
    expect(model.calls).toEqual([["x", "y"], ["z"]]);
    expect(embedder.usage.cacheHits).toBe(1);
    const other = new Embedder(new HashEmbedding({ dimensions: 8, name: "other" }), { cache });
    await other.embed(["x"]);
    expect(other.usage.cacheHits).toBe(0);
  });

  it("retries transient failures and gives up on the others", async () => {
    const transient = flakyModel(2, "rate_limit");
    const vectors = await new Embedder(transient.model, { retryDelayMs: 1, cache: false }).embed(["a"]);
    expect(vectors).toHaveLength(1);
    expect(transient.state.calls).toBe(3);
    const fatal = flakyModel(1, "authentication");
    await expect(new Embedder(fatal.model, { retryDelayMs: 1, cache: false }).embed(["a"])).rejects.toThrow(
      /authentication/,
    );
    expect(fatal.state.calls).toBe(1);
  });

  it("rejects a model that returns vectors of the wrong length", async () => {
    let calls = 0;
    const liar: EmbeddingModel = {
      name: "liar",
      provider: "test",
      dimensions: 4,
      embed: async (texts) => {
        calls++;
        return { vectors: texts.map(() => [1, 2]), usage: { inputTokens: 1 } };
      },
    };
    await expect(new Embedder(liar).embed(["a"])).rejects.toThrow(/2-dimensional.*declares 4/);
    expect(calls).toBe(1); // a broken model is not retried
  });
});
