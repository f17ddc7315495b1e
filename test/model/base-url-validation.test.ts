import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveModel } from "../../src/app/server/config/model-spec.js";
import { userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import {
  DashScopeEmbedding,
  GeminiEmbedding,
  OllamaEmbedding,
  OpenAIEmbedding,
} from "../../src/model/embeddings/index.js";
import {
  BASE_URL_VARIABLES,
  BUILTIN_MODEL_DEFINITIONS,
  MODEL_PROVIDERS,
  modelFromSpec,
  parseModelSpec,
} from "../../src/model/from-spec.js";
import { OllamaModel } from "../../src/model/ollama/ollama-model.js";
import type { ModelSpecSettings } from "../../src/model/provider-kit/provider-definition.js";
import type { FetchFunction } from "../../src/model/transport/types.js";

/**
 * A base URL that is not http(s) must be an error naming the field and the value, for every
 * provider and every way of giving it, and must never send the prompt anywhere (in particular not
 * to the provider's public API, which is what happened when the spec ignored it).
 */

const NOT_HTTP = ["file:///etc/passwd", "javascript:alert(1)", "ftp://example.com/v1", "localhost:8080", ""];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("model specs", () => {
  for (const provider of MODEL_PROVIDERS) {
    for (const bad of NOT_HTTP) {
      if (provider === "ollama" && bad === "localhost:8080") continue; // OLLAMA_HOST's own form, below
      it(`${provider}: baseURL ${JSON.stringify(bad)} is an error naming it`, () => {
        const build = () => modelFromSpec({ provider, model: "m", baseURL: bad, apiKey: "k" }, {});
        expect(build).toThrow(/baseURL/);
        expect(build).toThrow(JSON.stringify(bad));
      });
    }
    it(`${provider}: a non-http(s) server after @ is an error, not part of the model name`, () => {
      for (const bad of [
        "ftp://example.com/v1",
        "file:///etc/passwd",
        "localhost:8080",
        "127.0.0.1",
        "api.example.com",
        "",
      ]) {
        const spec = `${provider}:m@${bad}`;
        expect(() => modelFromSpec(spec, {}), spec).toThrow(/must be an http:\/\/ or https:\/\/ URL/);
        expect(() => modelFromSpec(spec, {}), spec).toThrow(JSON.stringify(bad));
      }
    });
    const variable = BASE_URL_VARIABLES[provider];
    if (variable) {
      it(`${provider}: ${variable}=ftp://... is an error naming the variable`, () => {
        expect(() => modelFromSpec(`${provider}:m`, { [variable]: "ftp://example.com" })).toThrow(variable);
      });
    }
  }

  it("a version after @ stays part of the model name (Vertex-style model ids)", () => {
    expect(parseModelSpec("anthropic:claude-3-5-sonnet@20240620")).toEqual({
      provider: "anthropic",
      model: "claude-3-5-sonnet@20240620",
    });
    expect(parseModelSpec("vertex-style:gemini-1.5-pro@002").model).toBe("gemini-1.5-pro@002");
    expect(parseModelSpec("openai:m@http://127.0.0.1:4010/v1").baseURL).toBe("http://127.0.0.1:4010/v1");
  });

  it("Ollama keeps OLLAMA_HOST's scheme-less form, and refuses another scheme", () => {
    expect(() =>
      modelFromSpec({ provider: "ollama", model: "m", baseURL: "localhost:11434" }, {}),
    ).not.toThrow();
    expect(() => modelFromSpec("ollama:m", { OLLAMA_HOST: "file:///tmp/sock" })).toThrow(/OLLAMA_HOST/);
  });

  it("a service config's model with a bad server is a ConfigError naming the agent and the value", async () => {
    await expect(resolveModel("openai:gpt-4o-mini@ftp://example.com", "helper")).rejects.toThrow(
      /agents "helper"\.model: .*ftp:\/\/example\.com/,
    );
    await expect(
      resolveModel({ provider: "anthropic", model: "m", baseURL: "javascript:alert(1)" }, "helper"),
    ).rejects.toThrow(/agents "helper"\.model: .*baseURL "javascript:alert\(1\)"/);
  });
});

describe("provider classes given a bad baseURL directly send nothing", () => {
  const fetches: string[] = [];
  const fetch: FetchFunction = async (url) => {
    fetches.push(url);
    return new Response("{}", { status: 500 });
  };
  const common = {
    model: "m",
    apiKey: "k",
    fetch,
    transport: "fetch" as const,
    maxRetries: 0,
    dimensions: 8,
  };

  async function drain(model: { stream(messages: never[]): AsyncIterable<unknown> }) {
    for await (const _ of model.stream([userMsg("secret prompt")] as never[])) {
      // drain
    }
  }

  for (const bad of NOT_HTTP) {
    it(`baseURL ${JSON.stringify(bad)}: each chat and embedding model fails naming it, no request made`, async () => {
      fetches.length = 0;
      // Every provider's definition builds its model with the options as given (Ollama's is `host`: below).
      const chat = BUILTIN_MODEL_DEFINITIONS.filter(({ name }) => name !== "ollama").map(
        (provider) => () => provider.create({ ...common, baseURL: bad } as ModelSpecSettings),
      );
      for (const build of chat) {
        // Either the constructor or the first call refuses it; neither reaches the network.
        await expect(
          (async () => {
            await drain(build() as never);
          })(),
        ).rejects.toThrow(`baseURL ${JSON.stringify(bad)}`);
      }
      const embeddings = [
        () => new OpenAIEmbedding({ ...common, baseURL: bad }),
        () => new GeminiEmbedding({ ...common, baseURL: bad }),
        () => new DashScopeEmbedding({ ...common, baseURL: bad }),
      ];
      for (const build of embeddings) {
        await expect((async () => build().embed(["secret"]))()).rejects.toThrow(
          `baseURL ${JSON.stringify(bad)}`,
        );
      }
      if (bad !== "localhost:8080") {
        await expect(drain(new OllamaModel({ ...common, host: bad }) as never)).rejects.toThrow(
          `host ${JSON.stringify(bad)}`,
        );
        await expect(new OllamaEmbedding({ ...common, host: bad }).embed(["secret"])).rejects.toThrow(
          `host ${JSON.stringify(bad)}`,
        );
      }
      expect(fetches).toEqual([]);
    });
  }

  it("an environment variable with another scheme is named too (ANTHROPIC_BASE_URL)", async () => {
    vi.stubEnv("ANTHROPIC_BASE_URL", "file:///etc/passwd");
    fetches.length = 0;
    await expect(drain(new AnthropicModel(common) as never)).rejects.toThrow(/ANTHROPIC_BASE_URL/);
    expect(fetches).toEqual([]);
  });
});
