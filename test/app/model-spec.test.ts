import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "../../src/app/server/config/model-spec.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { userMsg } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/core.js";
import { modelFromSpec, normalizeBaseURL, parseModelSpec } from "../../src/model/from-spec.js";

/** A server that records each request's path and Authorization header, then answers 401. */
let server: Server;
let base: string;
const seen: Array<{ path: string; auth: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    seen.push({ path: req.url ?? "", auth: req.headers.authorization });
    req.resume();
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "bad key", type: "invalid_request_error" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends one request with the model and returns what the local server saw (the call itself fails). */
async function requestOf(model: ChatModel) {
  seen.length = 0;
  try {
    for await (const _ of model.stream([userMsg("hi")], { maxRetries: 0 } as never)) {
      // drain
    }
  } catch {
    // 401 from the local server
  }
  return seen[0];
}

describe("where a model spec sends its requests", () => {
  it("honours OPENAI_BASE_URL, as the openai SDK and mock servers' READMEs expect", async () => {
    const model = modelFromSpec("openai:gpt-4o-mini", { OPENAI_BASE_URL: `${base}/v1` });
    expect((await requestOf(model))?.path).toBe("/v1/chat/completions");
  });

  it("takes the server from the spec string after @ (and a bare host gets /v1)", async () => {
    expect(parseModelSpec(`openai:gpt-4o-mini@${base}/v1`)).toEqual({
      provider: "openai",
      model: "gpt-4o-mini",
      baseURL: `${base}/v1`,
    });
    expect(parseModelSpec("vertex:claude@2024")).toEqual({ provider: "vertex", model: "claude@2024" });
    const model = modelFromSpec(`openai:gpt-4o-mini@${base}`);
    expect((await requestOf(model))?.path).toBe("/v1/chat/completions");
  });

  it("a JSON config can name the server and the variable that holds the key", async () => {
    const config = parseServiceConfig({
      agents: [
        {
          name: "a",
          model: { provider: "openai", model: "gpt-4o-mini", baseURL: `${base}/v1`, apiKeyEnv: "MY_KEY" },
        },
      ],
    });
    process.env.MY_KEY = "k3";
    try {
      const model = await resolveModel(config.agents[0]!.model, "a");
      expect(await requestOf(model)).toEqual({ path: "/v1/chat/completions", auth: "Bearer k3" });
    } finally {
      delete process.env.MY_KEY;
    }
    await expect(
      resolveModel({ provider: "openai", model: "m", apiKeyEnv: "NOT_SET_ANYWHERE" }, "a"),
    ).rejects.toThrow(/NOT_SET_ANYWHERE/);
  });

  it("accepts both base URL forms per provider and refuses what is not http(s)", () => {
    expect(normalizeBaseURL("anthropic", "http://h:1/v1")).toBe("http://h:1");
    expect(normalizeBaseURL("anthropic", "http://h:1/")).toBe("http://h:1");
    expect(normalizeBaseURL("gemini", "http://h:1")).toBe("http://h:1/v1beta");
    expect(normalizeBaseURL("gemini", "http://h:1/v1beta/")).toBe("http://h:1/v1beta");
    expect(normalizeBaseURL("openai", "http://h:1")).toBe("http://h:1/v1");
    expect(normalizeBaseURL("openai", "http://h:1/compatible-mode/v1")).toBe("http://h:1/compatible-mode/v1");
    expect(() => normalizeBaseURL("openai", "127.0.0.1:4010")).toThrow(/http/);
    expect(() => modelFromSpec({ provider: "openai", model: "m", baseURL: "ftp://x" })).toThrow(/http/);
  });
});
