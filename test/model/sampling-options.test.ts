import { describe, expect, it } from "vitest";
import { type AgentScopeError, userMsg } from "../../src/message/index.js";
import { AnthropicModel } from "../../src/model/anthropic/anthropic-model.js";
import { DashScopeModel } from "../../src/model/dashscope/dashscope-model.js";
import { GeminiModel } from "../../src/model/gemini/gemini-model.js";
import { OllamaModel } from "../../src/model/ollama/ollama-model.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import { OpenAIResponsesModel } from "../../src/model/openai/responses-model.js";
import type { ChatModel, SamplingOptions } from "../../src/model/types.js";
import { chatCompletionFrames, responsesFrames, type TextWire } from "./helpers/openai-wire.js";
import { anthropicFrames, dashScopeFrames, geminiFrames, ollamaFrames } from "./helpers/provider-wire.js";
import { wireServerForFile } from "./helpers/wire-server.js";

/** Every sampling option, with values the checks accept. */
const ALL: Required<SamplingOptions> = {
  topP: 0.9,
  topK: 40,
  stopSequences: ["\n\nUser:"],
  seed: 7,
  presencePenalty: 0.5,
  frequencyPenalty: -0.5,
};

interface Case {
  name: string;
  create(origin: string, sampling?: SamplingOptions): ChatModel;
  wire: TextWire;
  /** Where the options land in the body, under the provider's names. */
  expected: Record<string, unknown>;
  section?: string;
  unsupported: Array<keyof SamplingOptions>;
}

const usage = { input: 3, output: 2 };
const CASES: Case[] = [
  {
    name: "openai-chat",
    create: (o, sampling) =>
      new OpenAIChatModel({ model: "gpt-4o", baseURL: `${o}/v1`, apiKey: "k", sampling }),
    wire: chatCompletionFrames(["ok"], usage),
    expected: { top_p: 0.9, stop: ["\n\nUser:"], seed: 7, presence_penalty: 0.5, frequency_penalty: -0.5 },
    unsupported: ["topK"],
  },
  {
    name: "openai-responses",
    create: (o, sampling) =>
      new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${o}/v1`, apiKey: "k", sampling }),
    wire: responsesFrames(["ok"], usage),
    expected: { top_p: 0.9 },
    unsupported: ["topK", "stopSequences", "seed", "presencePenalty", "frequencyPenalty"],
  },
  {
    name: "anthropic",
    create: (o, sampling) =>
      new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: o, apiKey: "k", sampling }),
    wire: anthropicFrames(["ok"], usage),
    expected: { top_p: 0.9, top_k: 40, stop_sequences: ["\n\nUser:"] },
    unsupported: ["seed", "presencePenalty", "frequencyPenalty"],
  },
  {
    name: "gemini",
    create: (o, sampling) =>
      new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${o}/v1beta`, apiKey: "k", sampling }),
    wire: geminiFrames(["ok"], usage),
    expected: {
      topP: 0.9,
      topK: 40,
      stopSequences: ["\n\nUser:"],
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
    },
    section: "generationConfig",
    unsupported: [],
  },
  {
    name: "ollama",
    create: (o, sampling) => new OllamaModel({ model: "llama3.1", host: o, sampling }),
    wire: ollamaFrames(["ok"], usage),
    expected: {
      top_p: 0.9,
      top_k: 40,
      stop: ["\n\nUser:"],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
    },
    section: "options",
    unsupported: [],
  },
  {
    name: "dashscope",
    create: (o, sampling) => new DashScopeModel({ model: "qwen-plus", baseURL: o, apiKey: "k", sampling }),
    wire: dashScopeFrames(["ok"], usage),
    expected: { top_p: 0.9, top_k: 40, stop: ["\n\nUser:"], seed: 7, presence_penalty: 0.5 },
    section: "parameters",
    unsupported: ["frequencyPenalty"],
  },
];

const wire = wireServerForFile();

async function drain(model: ChatModel, options: SamplingOptions = {}) {
  for await (const _ of model.stream([userMsg("hi")], options)) {
    // read to the end
  }
}

describe.each(CASES)("$name", (provider) => {
  const supported = Object.fromEntries(
    Object.entries(ALL).filter(([key]) => !provider.unsupported.includes(key as keyof SamplingOptions)),
  ) as SamplingOptions;
  const frames = [...provider.wire.open, ...provider.wire.deltas, ...provider.wire.close];
  const sentOptions = () => {
    const body = wire.requests[0]?.body as Record<string, unknown>;
    return (provider.section ? body[provider.section] : body) as Record<string, unknown>;
  };

  it("sends every sampling option it has under the provider's names", async () => {
    wire.queue({ frames });
    await drain(provider.create(wire.url), supported);
    expect(sentOptions()).toMatchObject(provider.expected);
  });

  it("takes model defaults and lets a call override them", async () => {
    wire.queue({ frames });
    const stops = !provider.unsupported.includes("stopSequences");
    const defaults: SamplingOptions = stops ? { topP: 0.5, stopSequences: ["END"] } : { topP: 0.5 };
    await drain(provider.create(wire.url, defaults), { topP: 0.25 });
    const sent = Object.values(sentOptions());
    expect(sent).toContain(0.25);
    expect(sent).not.toContain(0.5);
    if (stops) expect(sent).toContainEqual(["END"]);
  });

  it("rejects an out-of-range value, naming the option", async () => {
    const error = (await drain(provider.create(wire.url), { topP: 1.5 }).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toMatch(/`topP` must be a number from 0 to 1, got 1\.5/);
    expect(wire.requests).toHaveLength(0);
  });
});

describe.each(CASES.filter((c) => c.unsupported.length > 0))("$name without some options", (provider) => {
  it("rejects the options it does not have, naming them, and sends nothing", async () => {
    const error = (await drain(provider.create(wire.url), ALL).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    for (const field of provider.unsupported) expect(error.message).toContain(`\`${field}\``);
    expect(error.message).toContain("extraBody");
    expect(wire.requests).toHaveLength(0);
  });
});
