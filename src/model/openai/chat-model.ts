import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { streamChat } from "../transport/stream-chat.js";
import type { ChatChunk, ChatModel, ChatOptions, ToolSchema } from "../types.js";
import { formatOpenAIChat } from "./chat-format.js";
import { OpenAIChatStreamParser } from "./chat-stream-parser.js";
import { type OpenAIConnectionOptions, type ResolvedConnection, resolveConnection } from "./connection.js";

export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /** `reasoning_effort` for reasoning models. */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
}

/**
 * OpenAI Chat Completions, and any OpenAI-compatible server through `baseURL` or a `preset`
 * (deepseek, dashscope, moonshot, vllm, lmstudio, ollama). Streams over our own transport.
 */
export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly provider: string;
  readonly contextSize: number;
  private readonly connection: ResolvedConnection;

  constructor(private readonly options: OpenAIChatModelOptions) {
    this.name = options.model;
    this.connection = resolveConnection(options);
    this.provider = this.connection.preset.provider;
    this.contextSize = options.contextSize ?? modelInfo(options.model)?.contextSize ?? DEFAULT_CONTEXT_SIZE;
  }

  stream(messages: Msg[], opts: ChatOptions = {}): AsyncIterable<ChatChunk> {
    const { preset } = this.connection;
    const body = formatOpenAIChat(messages, {
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
    return streamChat({
      provider: this.provider,
      request: { url: this.connection.url("/chat/completions"), headers: this.connection.headers, body },
      format: "sse",
      createParser: () => new OpenAIChatStreamParser(this.provider),
      signal: opts.signal,
      credentialHint: this.connection.credentialHint,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
    });
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }
}

/** An OpenAIChatModel for a compatible server's preset: `openAICompatible("deepseek", { model: "deepseek-chat" })`. */
export function openAICompatible(
  preset: NonNullable<OpenAIChatModelOptions["preset"]>,
  options: Omit<OpenAIChatModelOptions, "preset">,
): OpenAIChatModel {
  return new OpenAIChatModel({ ...options, preset });
}
