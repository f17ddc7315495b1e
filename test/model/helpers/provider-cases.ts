import type { Msg } from "../../../src/message/index.js";
import { formatAnthropic } from "../../../src/model/anthropic/anthropic-format.js";
import { AnthropicModel } from "../../../src/model/anthropic/anthropic-model.js";
import { formatDashScope } from "../../../src/model/dashscope/dashscope-format.js";
import { DashScopeModel } from "../../../src/model/dashscope/dashscope-model.js";
import { formatGemini } from "../../../src/model/gemini/gemini-format.js";
import { GeminiModel } from "../../../src/model/gemini/gemini-model.js";
import { formatOllama } from "../../../src/model/ollama/ollama-format.js";
import { OllamaModel } from "../../../src/model/ollama/ollama-model.js";
import { formatOpenAIChat } from "../../../src/model/openai/chat-format.js";
import { OpenAIChatModel } from "../../../src/model/openai/chat-model.js";
import { formatOpenAIResponses } from "../../../src/model/openai/responses-format.js";
import { OpenAIResponsesModel } from "../../../src/model/openai/responses-model.js";
import type { TransportOptions } from "../../../src/model/transport/types.js";
import type { ChatModel, JsonSchema, SamplingOptions, ToolSchema } from "../../../src/model/types.js";
import {
  chatCompletionFrames,
  openAIErrorBody,
  responsesFrames,
  type TextWire,
  type UsageCounts,
} from "./openai-wire.js";
import {
  anthropicErrorBody,
  anthropicFrames,
  dashScopeErrorBody,
  dashScopeFrames,
  geminiFrames,
  googleErrorBody,
  ollamaErrorBody,
  ollamaFrames,
} from "./provider-wire.js";

/**
 * Every provider once, for the shared suites: a provider joins them all with one entry here.
 * shared-behaviour.test.ts runs `behaviour`, sampling-options.test.ts `sampling`,
 * native-structured-output.test.ts `structuredOutput`, formatter-fixtures.test.ts `formatter`
 * (its expected body in test/model/fixtures/<fixture>); a section left out skips that suite.
 * The model-spec suites (base-url-validation, lazy-stream) iterate the provider definitions instead.
 */
export interface ProviderCase {
  name: string;
  /** Recorded frames of a streamed text reply: opening frames, one per delta, closing frames (with usage). */
  textWire(texts: string[], usage: UsageCounts): TextWire;
  behaviour?: {
    /** A model on `origin` (aimock, or our own wire server serving recorded frames). */
    create(origin: string, options: TransportOptions): ChatModel;
    /** The body the provider sends with an error status (401, 429). */
    errorBody(status: number): string;
    /** Content type of a streamed reply. */
    contentType?: string;
    /** Where the credentials hint points (env variable or option), checked in the 401 message. */
    credentialHint: string;
    /** Whether thinking this provider produced goes back to it on the next turn. */
    thinkingRoundTrip: boolean;
    /** False when aimock does not speak the provider: the aimock behaviours then run against our DashScope responder. */
    aimock?: boolean;
  };
  sampling?: {
    create(origin: string, sampling?: SamplingOptions): ChatModel;
    /** Where the options land in the body, under the provider's names. */
    expected: Record<string, unknown>;
    section?: string;
    unsupported: Array<keyof SamplingOptions>;
  };
  structuredOutput?: {
    create(origin: string): ChatModel;
    /** Where the schema lands in the body and what it looks like there; absent: no native structured output. */
    native?: { pick(body: Record<string, unknown>): unknown; expected(schema: JsonSchema): unknown };
  };
  formatter?: {
    fixture: string;
    /** Provider id stamped on the conversation's thinking (so it is the target's own). */
    provider: string;
    /** Whether the model keeps its own built-in tool runs when it normalises (as its ProviderModel does). */
    keepProviderRuns?: boolean;
    format(messages: Msg[], tools: ToolSchema[]): unknown;
  };
}

const OPENAI_JSON_SCHEMA = (schema: JsonSchema) => ({ name: "weather", schema, strict: true });

export const PROVIDER_CASES: ProviderCase[] = [
  {
    name: "openai-chat",
    textWire: (texts, usage) => chatCompletionFrames(texts, usage),
    behaviour: {
      create: (origin, options) =>
        new OpenAIChatModel({ model: "gpt-5", baseURL: `${origin}/v1`, apiKey: "sk-test", ...options }),
      errorBody: openAIErrorBody,
      credentialHint: "OPENAI_API_KEY",
      thinkingRoundTrip: false,
    },
    sampling: {
      create: (o, sampling) =>
        new OpenAIChatModel({ model: "gpt-4o", baseURL: `${o}/v1`, apiKey: "k", sampling }),
      expected: { top_p: 0.9, stop: ["\n\nUser:"], seed: 7, presence_penalty: 0.5, frequency_penalty: -0.5 },
      unsupported: ["topK"],
    },
    structuredOutput: {
      create: (o) => new OpenAIChatModel({ model: "gpt-4o", baseURL: `${o}/v1`, apiKey: "k" }),
      native: {
        pick: (body) => body.response_format,
        expected: (schema) => ({ type: "json_schema", json_schema: OPENAI_JSON_SCHEMA(schema) }),
      },
    },
    formatter: {
      fixture: "openai-chat.json",
      provider: "openai",
      format: (messages, tools) =>
        formatOpenAIChat(messages, { model: "gpt-4o", tools, toolChoice: "auto", maxTokens: 1024 }),
    },
  },
  {
    name: "openai-chat (deepseek preset)",
    textWire: (texts, usage) => chatCompletionFrames(texts, usage, "deepseek-reasoner"),
    behaviour: {
      create: (origin, options) =>
        new OpenAIChatModel({
          model: "deepseek-reasoner",
          preset: "deepseek",
          baseURL: `${origin}/v1`,
          apiKey: "k",
          ...options,
        }),
      errorBody: openAIErrorBody,
      credentialHint: "DEEPSEEK_API_KEY",
      thinkingRoundTrip: true,
    },
    formatter: {
      fixture: "openai-chat-deepseek.json",
      provider: "deepseek",
      format: (messages, tools) =>
        formatOpenAIChat(messages, {
          model: "deepseek-reasoner",
          provider: "deepseek",
          reasoningRoundTrip: true,
          maxTokensField: "max_tokens",
          tools,
          toolChoice: { name: "get_weather" },
          maxTokens: 1024,
        }),
    },
  },
  {
    name: "openai-responses",
    textWire: (texts, usage) => responsesFrames(texts, usage, "o3"),
    behaviour: {
      create: (origin, options) =>
        new OpenAIResponsesModel({
          model: "o3",
          baseURL: `${origin}/v1`,
          apiKey: "sk-test",
          reasoningEffort: "low",
          ...options,
        }),
      errorBody: openAIErrorBody,
      credentialHint: "OPENAI_API_KEY",
      thinkingRoundTrip: true,
    },
    sampling: {
      create: (o, sampling) =>
        new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${o}/v1`, apiKey: "k", sampling }),
      expected: { top_p: 0.9 },
      unsupported: ["topK", "stopSequences", "seed", "presencePenalty", "frequencyPenalty"],
    },
    structuredOutput: {
      create: (o) => new OpenAIResponsesModel({ model: "gpt-5", baseURL: `${o}/v1`, apiKey: "k" }),
      native: {
        pick: (body) => body.text,
        expected: (schema) => ({ format: { type: "json_schema", ...OPENAI_JSON_SCHEMA(schema) } }),
      },
    },
    formatter: {
      fixture: "openai-responses.json",
      provider: "openai",
      keepProviderRuns: true,
      format: (messages, tools) =>
        formatOpenAIResponses(messages, {
          model: "o3",
          tools,
          toolChoice: "required",
          maxTokens: 1024,
          reasoningEffort: "low",
          store: false,
        }),
    },
  },
  {
    name: "anthropic",
    textWire: (texts, usage) => anthropicFrames(texts, usage),
    behaviour: {
      create: (origin, options) =>
        new AnthropicModel({
          model: "claude-sonnet-4-5",
          baseURL: origin,
          apiKey: "sk-ant-test",
          ...options,
        }),
      errorBody: anthropicErrorBody,
      credentialHint: "ANTHROPIC_API_KEY",
      thinkingRoundTrip: true,
    },
    sampling: {
      create: (o, sampling) =>
        new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: o, apiKey: "k", sampling }),
      expected: { top_p: 0.9, top_k: 40, stop_sequences: ["\n\nUser:"] },
      unsupported: ["seed", "presencePenalty", "frequencyPenalty"],
    },
    structuredOutput: {
      create: (o) => new AnthropicModel({ model: "claude-sonnet-4-5", baseURL: o, apiKey: "k" }),
    },
    formatter: {
      fixture: "anthropic.json",
      provider: "anthropic",
      keepProviderRuns: true,
      format: (messages, tools) =>
        formatAnthropic(messages, {
          model: "claude-sonnet-4-5",
          maxTokens: 1024,
          tools,
          toolChoice: "auto",
          thinkingBudget: 1024,
        }),
    },
  },
  {
    name: "gemini",
    textWire: (texts, usage) => geminiFrames(texts, usage),
    behaviour: {
      create: (origin, options) =>
        new GeminiModel({
          model: "gemini-2.5-flash",
          baseURL: `${origin}/v1beta`,
          apiKey: "g-test",
          ...options,
        }),
      errorBody: googleErrorBody,
      credentialHint: "GEMINI_API_KEY",
      thinkingRoundTrip: true,
    },
    sampling: {
      create: (o, sampling) =>
        new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${o}/v1beta`, apiKey: "k", sampling }),
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
    structuredOutput: {
      create: (o) => new GeminiModel({ model: "gemini-2.5-flash", baseURL: `${o}/v1beta`, apiKey: "k" }),
      native: {
        pick: (body) => body.generationConfig,
        // Gemini's Schema dialect (upper-case types, no additionalProperties), as for function declarations.
        expected: () => ({
          responseMimeType: "application/json",
          responseSchema: {
            type: "OBJECT",
            properties: { city: { type: "STRING" }, celsius: { type: "NUMBER" } },
            required: ["city", "celsius"],
          },
        }),
      },
    },
    formatter: {
      fixture: "gemini.json",
      provider: "gemini",
      keepProviderRuns: true,
      format: (messages, tools) =>
        formatGemini(messages, { tools, toolChoice: "required", maxTokens: 1024, thinkingBudget: 512 }),
    },
  },
  {
    name: "ollama",
    textWire: (texts, usage) => ollamaFrames(texts, usage),
    behaviour: {
      create: (origin, options) => new OllamaModel({ model: "llama3.1", host: origin, ...options }),
      errorBody: ollamaErrorBody,
      contentType: "application/x-ndjson",
      credentialHint: "OLLAMA_API_KEY",
      thinkingRoundTrip: true,
    },
    sampling: {
      create: (o, sampling) => new OllamaModel({ model: "llama3.1", host: o, sampling }),
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
    structuredOutput: {
      create: (o) => new OllamaModel({ model: "llama3.1", host: o }),
      native: { pick: (body) => body.format, expected: (schema) => schema },
    },
    formatter: {
      fixture: "ollama.json",
      provider: "ollama",
      format: (messages, tools) =>
        formatOllama(messages, { model: "qwen3", tools, think: true, maxTokens: 1024 }),
    },
  },
  {
    name: "dashscope",
    textWire: (texts, usage) => dashScopeFrames(texts, usage),
    behaviour: {
      create: (origin, options) =>
        new DashScopeModel({ model: "qwen-plus", baseURL: origin, apiKey: "sk-ds", ...options }),
      errorBody: dashScopeErrorBody,
      credentialHint: "DASHSCOPE_API_KEY",
      thinkingRoundTrip: true,
      aimock: false,
    },
    sampling: {
      create: (o, sampling) => new DashScopeModel({ model: "qwen-plus", baseURL: o, apiKey: "k", sampling }),
      expected: { top_p: 0.9, top_k: 40, stop: ["\n\nUser:"], seed: 7, presence_penalty: 0.5 },
      section: "parameters",
      unsupported: ["frequencyPenalty"],
    },
    structuredOutput: {
      create: (o) => new DashScopeModel({ model: "qwen-plus", baseURL: o, apiKey: "k" }),
    },
    formatter: {
      fixture: "dashscope.json",
      provider: "dashscope",
      format: (messages, tools) =>
        formatDashScope(messages, {
          model: "qwen-vl-max",
          tools,
          toolChoice: { name: "get_weather" },
          enableThinking: true,
          maxTokens: 1024,
        }),
    },
  },
];

/** The cases that have section `key`, with it required (for describe.each). */
export function casesWith<K extends "behaviour" | "sampling" | "structuredOutput" | "formatter">(
  key: K,
): Array<ProviderCase & Required<Pick<ProviderCase, K>>> {
  return PROVIDER_CASES.filter(
    (c): c is ProviderCase & Required<Pick<ProviderCase, K>> => c[key] !== undefined,
  );
}
