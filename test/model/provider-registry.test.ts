import { describe, expect, it } from "vitest";
import { EMBEDDING_PROVIDERS, embeddingFromSpec } from "../../src/model/embedding-from-spec.js";
import {
  BASE_URL_VARIABLES,
  BUILTIN_MODEL_DEFINITIONS,
  MODEL_PROVIDERS,
  modelFromEnvironment,
  modelProvider,
} from "../../src/model/from-spec.js";
import { ollamaProvider } from "../../src/model/index.js";
import { BUILTIN_MODEL_PROVIDERS, loadBuiltinModelProviders } from "../../src/model/providers.js";

describe("the built-in provider table (src/model/providers.ts)", () => {
  it("names the providers a spec may use (MODEL_PROVIDERS) and loads each one's definition, in its order", () => {
    expect(MODEL_PROVIDERS).toEqual(BUILTIN_MODEL_PROVIDERS.map(({ name }) => name));
    expect(BUILTIN_MODEL_DEFINITIONS.map(({ name }) => name)).toEqual(MODEL_PROVIDERS);
    expect(new Set(MODEL_PROVIDERS).size).toBe(MODEL_PROVIDERS.length);
    for (const name of MODEL_PROVIDERS) expect(modelProvider(name)?.name).toBe(name);
    expect(modelProvider("ollama")).toBe(ollamaProvider);
    expect(MODEL_PROVIDERS).toEqual(expect.arrayContaining(["deepseek", "vllm"]));
  });

  it("refuses an entry whose definition has another name", async () => {
    await expect(
      loadBuiltinModelProviders([{ name: "acme", load: async () => ollamaProvider }]),
    ).rejects.toThrow('built-in model provider "acme" loaded a definition named "ollama"');
  });

  it("give the built-in providers' server variables", () => {
    expect(BASE_URL_VARIABLES).toMatchObject({
      openai: "OPENAI_BASE_URL",
      "openai-responses": "OPENAI_BASE_URL",
      anthropic: "ANTHROPIC_BASE_URL",
      gemini: "GEMINI_BASE_URL",
      dashscope: "DASHSCOPE_BASE_URL",
      ollama: "OLLAMA_HOST",
    });
  });

  it("pick the default model of the first provider whose key is set, in their order", () => {
    const pick = (env: Record<string, string>) => {
      const model = modelFromEnvironment(env);
      return model && `${model.provider}:${model.name}`;
    };
    expect(pick({ OLLAMA_HOST: "127.0.0.1:11434", DASHSCOPE_API_KEY: "k" })).toBe("dashscope:qwen-plus");
    expect(pick({ GEMINI_API_KEY: "k", ANTHROPIC_API_KEY: "k" })).toBe("anthropic:claude-sonnet-4-5");
    expect(pick({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" })).toBe("openai:gpt-4o-mini");
    expect(pick({ OLLAMA_HOST: "127.0.0.1:11434" })).toBe("ollama:llama3.2");
    expect(pick({})).toBeUndefined();
  });
});

describe("the embedding provider definitions (src/model/embeddings/)", () => {
  it("are the native ones, then the OpenAI-compatible presets without a native API of the same name", () => {
    expect(EMBEDDING_PROVIDERS).toEqual([
      "openai",
      "gemini",
      "ollama",
      "dashscope",
      "deepseek",
      "moonshot",
      "vllm",
      "lmstudio",
    ]);
    expect(() => embeddingFromSpec("acme:e")).toThrow(/unknown provider "acme" \(known: openai, gemini/);
  });
});
