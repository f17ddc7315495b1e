import type { Msg } from "../../message/index.js";
import { lazyStream } from "../provider-kit/lazy-stream.js";
import { checkResponseFormat, openAIJsonSchema } from "../provider-kit/response-format.js";
import { applySampling, mergeSampling } from "../provider-kit/sampling.js";
import type { ChatChunk, ChatOptions } from "../types.js";
import { OpenAIBaseModel } from "./base-model.js";
import { formatOpenAIChat } from "./chat-format.js";
import { OpenAIChatStreamParser } from "./chat-stream-parser.js";
import type { OpenAIConnectionOptions } from "./connection.js";

/** Chat Completions' names for the sampling options (no top_k: compatible servers take it via extraBody). */
const CHAT_SAMPLING = {
  topP: "top_p",
  stopSequences: "stop",
  seed: "seed",
  presencePenalty: "presence_penalty",
  frequencyPenalty: "frequency_penalty",
};

export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /** `reasoning_effort` for reasoning models. */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
}

/**
 * OpenAI Chat Completions, and any OpenAI-compatible server through `baseURL` or a `preset`
 * (deepseek, dashscope, moonshot, vllm, lmstudio, ollama). Streams over our own transport.
 */
export class OpenAIChatModel extends OpenAIBaseModel {
  constructor(private readonly options: OpenAIChatModelOptions) {
    super(options);
  }

  stream(messages: Msg[], opts: ChatOptions = {}): AsyncIterable<ChatChunk> {
    return lazyStream(() => this.sendChat(messages, opts));
  }

  private sendChat(messages: Msg[], opts: ChatOptions): AsyncIterable<ChatChunk> {
    const { preset } = this.connection;
    const sampling = mergeSampling(this.options.sampling, opts);
    const body = this.body(messages, (msgs) => {
      const request = formatOpenAIChat(msgs, {
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
      applySampling(this.provider, sampling, CHAT_SAMPLING, request);
      if (opts.responseFormat !== undefined) {
        const format = checkResponseFormat(this.provider, opts.responseFormat);
        request.response_format = { type: "json_schema", json_schema: openAIJsonSchema(format) };
      }
      return request;
    });
    return this.send("/chat/completions", body, () => new OpenAIChatStreamParser(this.provider), opts);
  }
}

/** An OpenAIChatModel for a compatible server's preset: `openAICompatible("deepseek", { model: "deepseek-chat" })`. */
export function openAICompatible(
  preset: NonNullable<OpenAIChatModelOptions["preset"]>,
  options: Omit<OpenAIChatModelOptions, "preset">,
): OpenAIChatModel {
  return new OpenAIChatModel({ ...options, preset });
}
