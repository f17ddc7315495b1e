import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { AgentScopeError, assistantMsg, textBlock, userMsg } from "../../../src/message/index.js";
import { modelFromEnvironment, modelFromSpec } from "../../../src/model/from-spec.js";
import {
  MISSING_TOOL_RESULT,
  registerModelProvider,
  unregisterModelProvider,
} from "../../../src/model/provider-kit/index.js";
import { SpecChatModel } from "../../../src/model/spec-chat-model.js";
import { collect, collectError } from "../helpers/collect-stream.js";
import { sse, wireServerForFile } from "../helpers/wire-server.js";
import { AcmeModel, acmeProvider } from "./acme-provider.js";

/**
 * The worked example of docs/providers.md ("Your own provider"): a provider built only on
 * agentscope/model/kit, streamed against the project's own wire server.
 */
const server = wireServerForFile();
const frame = (value: unknown) => sse(value);
const end = (reason = "done") => frame({ kind: "end", reason, tokens_in: 7, tokens_out: 3 });

afterEach(() => {
  unregisterModelProvider("acme");
});

describe("a third-party provider on the kit (test/model/kit/acme-provider.ts)", () => {
  it("streams text deltas with one block id and a final chunk with usage and the stop reason", async () => {
    server.queue({
      frames: [frame({ kind: "text", text: "Hel" }), frame({ kind: "text", text: "lo" }), end()],
    });
    const model = new AcmeModel({ model: "acme-large", baseURL: `${server.url}/v1`, apiKey: "k" });
    const { deltas, final } = await collect(model.stream([userMsg("hi")], { maxTokens: 50 }));
    expect(deltas.map((delta) => delta.delta)).toEqual(["Hel", "lo"]);
    expect(new Set(deltas.map((delta) => delta.blockId)).size).toBe(1);
    expect(final.content).toMatchObject([{ type: "text", text: "Hello" }]);
    expect(final.usage).toEqual({ inputTokens: 7, outputTokens: 3 });
    expect(final.stopReason).toBe("stop");
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat");
    expect(request?.headers.authorization).toBe("Bearer k");
    expect(request?.body).toEqual({
      model: "acme-large",
      messages: [{ role: "user", content: "hi" }],
      max_output: 50,
      stream: true,
    });
  });

  it("gets history normalised by the kit: a tool call without a result is answered before the formatter sees it", async () => {
    server.queue({
      frames: [frame({ kind: "call", id: "c2", name: "get_weather", args: '{"city":"Oslo"}' }), end()],
    });
    const model = new AcmeModel({ model: "acme-large", baseURL: server.url, apiKey: "k" });
    const reply = assistantMsg([
      textBlock("checking"),
      { type: "tool_call", id: "c1", name: "get_weather", input: '{"city":"Paris"}', state: "finished" },
    ]);
    const { final } = await collect(model.stream([userMsg("weather?"), reply]));
    expect(final.stopReason).toBe("tool_calls");
    expect(final.content).toMatchObject([
      { type: "tool_call", id: "c2", name: "get_weather", input: '{"city":"Oslo"}' },
    ]);
    expect(server.requests[0]?.body).toMatchObject({
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: "checking",
          calls: [{ id: "c1", name: "get_weather", args: '{"city":"Paris"}' }],
        },
        { role: "tool", content: MISSING_TOOL_RESULT, call_id: "c1" },
      ],
    });
  });

  it("gets the call's sampling written in, and an option it does not name rejected by name", async () => {
    server.queue({ frames: [frame({ kind: "text", text: "ok" }), end()] });
    const model = new AcmeModel({ model: "m", baseURL: server.url, apiKey: "k", sampling: { topP: 0.5 } });
    await collect(model.stream([userMsg("x")], { stopSequences: ["END"] }));
    expect(server.requests[0]?.body).toMatchObject({ top_p: 0.5, stop: ["END"] });
    const { error } = await collectError(model.stream([userMsg("x")], { topK: 3 }));
    expect(String(error)).toMatch(/topK/);
  });

  it("fails where the stream is iterated when the key is missing, naming the variable", async () => {
    const saved = process.env.ACME_API_KEY;
    delete process.env.ACME_API_KEY;
    try {
      const stream = new AcmeModel({ model: "m", baseURL: server.url }).stream([userMsg("x")]);
      const { error } = await collectError(stream);
      expect(error).toBeInstanceOf(AgentScopeError);
      expect((error as AgentScopeError).info.type).toBe("authentication");
      expect(String(error)).toMatch(/ACME_API_KEY/);
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.ACME_API_KEY = saved;
    }
  });

  it("maps a rejected key to an authentication error with its credential hint", async () => {
    server.queue({
      status: 401,
      headers: { "content-type": "application/json" },
      frames: ['{"error":"bad key"}'],
    });
    const { error } = await collectError(
      new AcmeModel({ model: "m", baseURL: server.url, apiKey: "k" }).stream([userMsg("x")]),
    );
    expect((error as AgentScopeError).info.type).toBe("authentication");
    expect(String(error)).toMatch(/ACME_API_KEY or the apiKey option/);
  });

  it("is a provider:model spec once registered (modelFromSpec, modelFromEnvironment, an agent's spec string)", async () => {
    expect(() => modelFromSpec("acme:acme-large")).toThrow(/unknown model provider "acme"/);
    expect(() => new SpecChatModel("acme:acme-large")).toThrow(/unknown provider "acme"/);
    registerModelProvider(acmeProvider);
    expect(() => registerModelProvider(acmeProvider)).toThrow(/already registered/);
    expect(() => registerModelProvider({ ...acmeProvider, name: "openai" })).toThrow(/already registered/);

    server.queue({ frames: [frame({ kind: "text", text: "ok" }), end()] });
    const model = modelFromSpec(
      { provider: "acme", model: "acme-large", baseURL: server.url, apiKey: "k" },
      {},
    );
    expect(model).toBeInstanceOf(AcmeModel);
    await collect(model.stream([userMsg("x")]));
    expect(server.requests[0]?.path).toBe("/v1/chat"); // the definition's normalisation added /v1
    expect(() => modelFromSpec("acme:m", { ACME_BASE_URL: "ftp://nope" })).toThrow(/ACME_BASE_URL/);
    expect(modelFromEnvironment({ ACME_API_KEY: "k" })?.name).toBe("acme-large");
    expect(new SpecChatModel("acme:acme-large").provider).toBe("acme");
  });
});

describe("docs/providers.md", () => {
  it("shows the example provider as tested here", () => {
    const docs = readFileSync(new URL("../../../docs/providers.md", import.meta.url), "utf8");
    const block = /<!-- acme-provider\.ts -->\n```ts\n([\s\S]*?)```/.exec(docs)?.[1];
    const source = readFileSync(new URL("./acme-provider.ts", import.meta.url), "utf8")
      .replaceAll("../../../src/message/index.js", "agentscope/message")
      .replaceAll("../../../src/model/provider-kit/index.js", "agentscope/model/kit");
    expect(block).toBe(source);
  });
});
