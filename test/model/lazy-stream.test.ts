import { describe, expect, it } from "vitest";
import { userMsg } from "../../src/message/index.js";
import { BUILTIN_MODEL_DEFINITIONS } from "../../src/model/from-spec.js";
import { type ChatChunk, isBatchedStream, modelFromSpec } from "../../src/model/index.js";
import { lazyStream } from "../../src/model/provider-kit/lazy-stream.js";

const final: ChatChunk = {
  type: "final",
  content: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  stopReason: "stop",
};

describe("lazyStream", () => {
  it("builds nothing until iterated, then reports a build error where the caller iterates", async () => {
    let built = 0;
    const stream = lazyStream(() => {
      built += 1;
      throw new Error("no key");
    });
    expect(built).toBe(0);
    await expect(async () => {
      for await (const _ of stream) break;
    }).rejects.toThrow("no key");
    await expect(async () => {
      for await (const _ of stream.batches()) break;
    }).rejects.toThrow("no key");
  });

  it("hands over batches, also from a stream that only yields chunk by chunk", async () => {
    async function* chunks(): AsyncGenerator<ChatChunk> {
      yield { type: "text", blockId: "t", delta: "a" };
      yield final;
    }
    const batches: ChatChunk[][] = [];
    for await (const batch of lazyStream(chunks).batches()) batches.push([...batch]);
    expect(batches).toEqual([[{ type: "text", blockId: "t", delta: "a" }], [final]]);
  });

  it("keeps every provider's stream batched for the agent's fast path", () => {
    // every built-in provider's definition (a new one joins by being listed in src/model/providers.ts)
    for (const spec of BUILTIN_MODEL_DEFINITIONS.map((p) => `${p.name}:${p.defaultModel?.model ?? "m"}`)) {
      const [provider, model] = spec.split(/:(.*)/s) as [string, string];
      const chat = modelFromSpec({ provider, model, apiKey: "k", baseURL: "http://127.0.0.1:9" });
      expect(isBatchedStream(chat.stream([userMsg("hi")])), spec).toBe(true);
    }
  });
});
