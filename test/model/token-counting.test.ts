import { describe, expect, it } from "vitest";
import { systemMsg, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { wireServerForFile } from "./helpers/wire-server.js";

const TOOLS = [
  { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} } },
];
const messages = [systemMsg("Be brief."), userMsg("How many tokens is this?")];
const JSON_TYPE = { "content-type": "application/json" };

const wire = wireServerForFile();

describe("Anthropic count_tokens", () => {
  const model = () =>
    new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: wire.url, apiKey: "k", maxRetries: 0 });

  it("asks /v1/messages/count_tokens with the prompt fields only", async () => {
    wire.queue({ headers: JSON_TYPE, frames: ['{"input_tokens":2095}'] });
    expect(await model().countInputTokens(messages, TOOLS)).toBe(2095);
    expect(wire.requests[0]?.path).toBe("/v1/messages/count_tokens");
    expect(wire.requests[0]?.headers["x-api-key"]).toBe("k");
    expect(wire.requests[0]?.body).toEqual({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: [{ type: "text", text: "How many tokens is this?" }] }],
      system: "Be brief.",
      tools: [
        { name: "get_weather", description: "Weather", input_schema: { type: "object", properties: {} } },
      ],
    });
  });

  it("falls back to the estimate when the endpoint fails", async () => {
    wire.queue({
      status: 404,
      headers: JSON_TYPE,
      frames: ['{"type":"error","error":{"type":"not_found_error","message":"Not found"}}'],
    });
    const m = model();
    expect(await m.countInputTokens(messages, TOOLS)).toBe(m.countTokens(messages, TOOLS));
    expect(wire.requests).toHaveLength(1);
  });

  it("rejects when aborted instead of estimating", async () => {
    const pending = model().countInputTokens(messages, TOOLS, { signal: AbortSignal.abort() });
    await expect(pending).rejects.toMatchObject({ info: { type: "aborted" } });
  });
});

describe("Gemini countTokens", () => {
  it("counts the whole generate request, system instruction and tools included", async () => {
    wire.queue({
      headers: JSON_TYPE,
      frames: ['{"totalTokens":31,"promptTokensDetails":[{"modality":"TEXT","tokenCount":31}]}'],
    });
    const model = new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${wire.url}/v1beta`, apiKey: "g" });
    expect(await model.countInputTokens(messages, TOOLS)).toBe(31);
    expect(wire.requests[0]?.path).toBe("/v1beta/models/gemini-2.5-flash:countTokens");
    expect(wire.requests[0]?.body).toEqual({
      generateContentRequest: {
        model: "models/gemini-2.5-flash",
        contents: [{ role: "user", parts: [{ text: "How many tokens is this?" }] }],
        systemInstruction: { parts: [{ text: "Be brief." }] },
        tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather" }] }],
      },
    });
  });

  it("falls back to the estimate on an answer without totalTokens", async () => {
    wire.queue({ headers: JSON_TYPE, frames: ["{}"] });
    const model = new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${wire.url}/v1beta`, apiKey: "g" });
    expect(await model.countInputTokens(messages)).toBe(model.countTokens(messages));
  });
});
