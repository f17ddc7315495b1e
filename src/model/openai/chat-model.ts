import type { Msg } from "../../message/index.js";
import { v1BaseURL } from "../provider-kit/base-url.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import type { ProviderCall } from "../provider-kit/provider-model.js";
import { openAIJsonSchema } from "../provider-kit/response-format.js";
import type { ResponseFormat } from "../types.js";
import { formatOpenAIChat } from "./chat-format.js";
import { OpenAIChatStreamParser } from "./chat-stream.js";
import type { OpenAIChatRequest } from "./chat-wire.js";
import { OpenAICompatibleModel } from "./compatible-model.js";
import type { OpenAIConnectionOptions } from "./connection.js";
import { OPENAI_PRESET_PROVIDERS, type OpenAIPresetName } from "./presets.js";

export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /** `reasoning_effort` for reasoning models. */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
}

/**
 * OpenAI Chat Completions, and any OpenAI-compatible server through `baseURL` or a `preset`
 * (deepseek, dashscope, moonshot, vllm, lmstudio, ollama). Streams over our own transport.
 */
export class OpenAIChatModel extends OpenAICompatibleModel<OpenAIChatModelOptions, OpenAIChatRequest> {
  protected readonly path = "/chat/completions";
  /** Chat Completions' names for the sampling options (no top_k: compatible servers take it via extraBody). */
  protected readonly samplingWire = {
    names: {
      topP: "top_p",
      stopSequences: "stop",
      seed: "seed",
      presencePenalty: "presence_penalty",
      frequencyPenalty: "frequency_penalty",
    },
  };

  protected format(messages: Msg[], { opts }: ProviderCall): OpenAIChatRequest {
    const { preset } = this.connection;
    return formatOpenAIChat(messages, {
      model: this.name,
      provider: this.provider,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens,
      maxTokensField: preset.maxTokensField,
      temperature: opts.temperature,
      reasoningEffort: this.options.reasoningEffort,
      reasoningRoundTrip: preset.reasoningRoundTrip,
      extraBody: opts.extraBody,
    });
  }

  protected parser(): OpenAIChatStreamParser {
    return new OpenAIChatStreamParser(this.provider);
  }

  protected override applyResponseFormat(body: Record<string, unknown>, format: ResponseFormat): void {
    body.response_format = { type: "json_schema", json_schema: openAIJsonSchema(format) };
  }
}

/** An OpenAIChatModel for a compatible server's preset: `openAICompatible("deepseek", { model: "deepseek-chat" })`. */
export function openAICompatible(
  preset: NonNullable<OpenAIChatModelOptions["preset"]>,
  options: Omit<OpenAIChatModelOptions, "preset">,
): OpenAIChatModel {
  return new OpenAIChatModel({ ...options, preset });
}

/** `openai:gpt-4o-mini` (Chat Completions). */
export const openAIChatProvider: ModelProviderDefinition = {
  name: "openai",
  baseURLVariable: "OPENAI_BASE_URL",
  normalizeBaseURL: (baseURL, field) => v1BaseURL(baseURL, field, "openai"),
  create: (settings) => new OpenAIChatModel(settings),
  defaultModel: { model: "gpt-4o-mini", when: "OPENAI_API_KEY" },
};

/** The provider of an OpenAI-compatible preset under its own name (`deepseek:deepseek-chat`, `vllm:...`). */
export function openAIPresetProvider(preset: OpenAIPresetName): ModelProviderDefinition {
  return {
    name: preset,
    normalizeBaseURL: (baseURL, field) => v1BaseURL(baseURL, field, preset),
    create: (settings) => new OpenAIChatModel({ ...settings, preset }),
  };
}

/**
 * The OpenAI-compatible presets under their own names, except those whose name is a native
 * provider's (ollama, dashscope: their native APIs win).
 */
export const openAIPresetProviders: readonly ModelProviderDefinition[] =
  OPENAI_PRESET_PROVIDERS.map(openAIPresetProvider);
