import { describe, expect, it } from "vitest";
import { addCost } from "../../src/message/index.js";
import { BUILTIN_PRICES, type ModelPrice, priceUsage, pricingTable } from "../../src/model/pricing/index.js";

const M = 1_000_000;
const price = (over: Partial<ModelPrice> = {}): ModelPrice => ({
  input: 3,
  output: 15,
  asOf: "2025-10-01",
  ...over,
});

describe("priceUsage", () => {
  it("bills fresh input, cache reads, cache writes and output each at its own rate (input counts include the cache)", () => {
    const usage = { inputTokens: 10_000, outputTokens: 500, cacheReadTokens: 6_000, cacheWriteTokens: 3_000 };
    const at = price({ cachedInput: 0.3, cacheWrite: 3.75 });
    expect(priceUsage(usage, at)).toBeCloseTo((1_000 * 3 + 6_000 * 0.3 + 3_000 * 3.75 + 500 * 15) / M, 15);
  });

  it("cache reads and writes cost the input rate when the price has no cache rates", () => {
    const usage = { inputTokens: 100, outputTokens: 0, cacheReadTokens: 40, cacheWriteTokens: 10 };
    expect(priceUsage(usage, price())).toBeCloseTo((100 * 3) / M, 15);
  });

  it("reasoning tokens (inside the output) cost the reasoning rate when there is one, else the output rate", () => {
    const usage = { inputTokens: 0, outputTokens: 1_000, reasoningTokens: 800 };
    expect(priceUsage(usage, price({ reasoning: 3.5 }))).toBeCloseTo((800 * 3.5 + 200 * 15) / M, 15);
    expect(priceUsage(usage, price())).toBeCloseTo((1_000 * 15) / M, 15);
  });
});

describe("pricingTable", () => {
  const table = pricingTable();

  it("a dated snapshot is priced by its family's key; the longest key wins", () => {
    expect(table.find("openai", "gpt-4o-2024-08-06")?.key).toBe("openai:gpt-4o");
    expect(table.find("openai", "gpt-4o-mini-2024-07-18")?.key).toBe("openai:gpt-4o-mini");
    expect(table.find("openai", "o3-mini")?.key).toBe("openai:o3-mini");
    expect(table.find("gemini", "models/gemini-2.5-flash")?.key).toBe("gemini:gemini-2.5-flash");
  });

  it("a key only matches at a name boundary, and a provider's prices are its own", () => {
    expect(table.find("openai", "o1x")).toBeUndefined();
    expect(table.find("anthropic", "gpt-4o")).toBeUndefined();
    expect(table.find("vllm", "gpt-4o")).toBeUndefined();
  });

  it("an unknown model costs 'no price' (null), never zero", () => {
    expect(table.cost("openai", "my-finetune", { inputTokens: 5, outputTokens: 5 })).toEqual({
      usd: null,
      pricedUsd: 0,
      unpriced: ["openai:my-finetune"],
    });
  });

  it("`provider:*` prices any model of the provider (Ollama runs locally at zero)", () => {
    expect(table.cost("ollama", "qwen3:8b", { inputTokens: 100, outputTokens: 100 })).toEqual({
      usd: 0,
      pricedUsd: 0,
      priceAsOf: BUILTIN_PRICES["ollama:*"]?.asOf,
    });
  });

  it("user prices override built-in ones and add new ones; builtin: false keeps only the user's", () => {
    const mine = pricingTable({
      prices: {
        "openai:gpt-4o": { input: 1, output: 2, asOf: "2026-01-01" },
        "my-vllm:*": { input: 0.1, output: 0.1, asOf: "2026-01-01" },
      },
    });
    expect(mine.find("openai", "gpt-4o")?.price.input).toBe(1);
    expect(mine.find("openai", "gpt-4o-mini")?.price.input).toBe(0.15);
    expect(mine.find("my-vllm", "llama")?.key).toBe("my-vllm:*");
    expect(table.find("openai", "gpt-4o")?.price.input).toBe(2.5); // the original is unchanged
    const only = pricingTable({
      builtin: false,
      prices: { "x:y": { input: 1, output: 1, asOf: "2026-01-01" } },
    });
    expect(only.find("openai", "gpt-4o")).toBeUndefined();
  });

  it("a bad key or price is refused with an error naming it", () => {
    const bad = (prices: unknown) => () => pricingTable({ prices: prices as Record<string, ModelPrice> });
    expect(bad({ "gpt-4o": price() })).toThrow(/gpt-4o.*provider:model/);
    expect(bad({ "openai:gpt-4o": price({ input: -1 }) })).toThrow(/openai:gpt-4o\.input/);
    expect(bad({ "openai:gpt-4o": price({ asOf: "last week" }) })).toThrow(/asOf.*YYYY-MM-DD/);
    expect(bad({ "openai:gpt-4o": { input: 1, output: 1 } })).toThrow(/asOf/);
    expect(bad({ "openai:gpt-4o": { ...price(), outptu: 1 } })).toThrow(/outptu/);
    expect(bad([])).toThrow(/expected an object/);
  });

  it("every built-in price has a valid date and a provider:model key", () => {
    const all = pricingTable({ builtin: false, prices: { ...BUILTIN_PRICES } });
    for (const key of Object.keys(BUILTIN_PRICES)) {
      const [provider = "", model = ""] = key.split(":");
      expect(all.find(provider, model === "*" ? "anything" : model)?.key).toBe(key);
    }
  });
});

describe("addCost", () => {
  it("sums; one unpriced part makes the total null and keeps the priced sum", () => {
    const a = { usd: 0.5, pricedUsd: 0.5, priceAsOf: "2025-01-01" };
    expect(addCost(undefined, a)).toEqual({ usd: 0.5, pricedUsd: 0.5 });
    const b = { usd: null, pricedUsd: 0, unpriced: ["x:y"] };
    expect(addCost(addCost(a, b), b)).toEqual({ usd: null, pricedUsd: 0.5, unpriced: ["x:y"] });
  });
});
