import { describe, expect, it } from "vitest";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { DashScopeModel } from "../../src/model/dashscope/dashscope-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OllamaModel } from "../../src/model/ollama/ollama-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import type { ChatModel, ResponseFormat } from "../../src/model/types.js";
import { collect } from "./helpers/collect-stream.js";
import { chatCompletionFrames, responsesFrames, type TextWire } from "./helpers/openai-wire.js";
import { anthropicFrames, dashScopeFrames, geminiFrames, ollamaFrames } from "./helpers/provider-wire.js";
import { wireServerForFile } from "./helpers/wire-server.js";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};
const FORMAT: ResponseFormat = { type: "json_schema", name: "weather", schema: SCHEMA };
const ANSWER = ['{"city":"Paris",', '"celsius":21}'];
const usage = { input: 5, output: 9 };

const wire = wireServerForFile();

function serve(frames: TextWire) {
  wire.queue({ frames: [...frames.open, ...frames.deltas, ...frames.close] });
}
const sent = () => wire.requests[0]?.body as Record<string, unknown>;
const textOf = (final: Awaited<ReturnType<typeof collect>>["final"]) =>
  final.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

const NATIVE: Array<
  [string, (origin: string) => ChatModel, TextWire, (body: Record<string, unknown>) => unknown]
> = [
  [
    "openai-chat",
    (o) => new OpenAIChatModel({ model: "gpt-4o", baseURL: `${o}/v1`, apiKey: "k" }),
    chatCompletionFrames(ANSWER, usage),
    (body) => body.response_format,
  ],
  [
    "openai-responses",
    (o) => new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${o}/v1`, apiKey: "k" }),
    responsesFrames(ANSWER, usage),
    (body) => body.text,
  ],
  [
    "gemini",
    (o) => new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${o}/v1beta`, apiKey: "k" }),
    geminiFrames(ANSWER, usage),
    (body) => body.generationConfig,
  ],
  [
    "ollama",
    (o) => new OllamaModel({ model: "llama3.1", host: o }),
    ollamaFrames(ANSWER, usage),
    (body) => body.format,
  ],
];

const EXPECTED: Record<string, unknown> = {
  "openai-chat": { type: "json_schema", json_schema: { name: "weather", schema: SCHEMA, strict: true } },
  "openai-responses": { format: { type: "json_schema", name: "weather", schema: SCHEMA, strict: true } },
  gemini: {
    responseMimeType: "application/json",
    // Gemini's Schema dialect (upper-case types, no additionalProperties), as for function declarations.
    responseSchema: {
      type: "OBJECT",
      properties: { city: { type: "STRING" }, celsius: { type: "NUMBER" } },
      required: ["city", "celsius"],
    },
  },
  ollama: SCHEMA,
};

describe.each(NATIVE)("%s native structured output", (name, create, frames, pick) => {
  it("sends the schema the provider's way and returns the JSON text", async () => {
    serve(frames);
    const { final } = await collect(
      create(wire.url).stream([userMsg("weather in Paris")], { responseFormat: FORMAT }),
    );
    expect(pick(sent())).toEqual(EXPECTED[name]);
    expect(JSON.parse(textOf(final))).toEqual({ city: "Paris", celsius: 21 });
  });

  it("rejects a bad schema name before sending", async () => {
    const stream = create(wire.url).stream([userMsg("x")], {
      responseFormat: { ...FORMAT, name: "has spaces" },
    });
    const error = (await collect(stream).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toContain("responseFormat name");
    expect(wire.requests).toHaveLength(0);
  });
});

describe.each([
  [
    "anthropic",
    (o: string) => new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: o, apiKey: "k" }),
    anthropicFrames(["x"], usage),
  ],
  [
    "dashscope",
    (o: string) => new DashScopeModel({ model: "qwen-plus", baseURL: o, apiKey: "k" }),
    dashScopeFrames(["x"], usage),
  ],
] as const)("%s without native structured output", (_name, create, frames) => {
  it("rejects responseFormat and points at the tool mode, sending nothing", async () => {
    serve(frames);
    const error = (await collect(create(wire.url).stream([userMsg("x")], { responseFormat: FORMAT })).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toContain("injected-tool structured output");
    expect(wire.requests).toHaveLength(0);
  });
});
