import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { streamChat } from "../transport/stream-chat.js";
import type { ChatChunk, ChatModel, ChatOptions, ToolSchema } from "../types.js";
import { type OpenAIConnectionOptions, type ResolvedConnection, resolveConnection } from "./connection.js";
import { formatOpenAIResponses, type OpenAIResponsesFormatOptions } from "./responses-format.js";
import { OpenAIResponsesStreamParser } from "./responses-stream-parser.js";

export interface OpenAIResponsesModelOptions extends OpenAIConnectionOptions {
  reasoningEffort?: OpenAIResponsesFormatOptions["reasoningEffort"];
  reasoningSummary?: OpenAIResponsesFormatOptions["reasoningSummary"];
  /** `store` sent with every request (server default when unset). */
  store?: boolean;
}

/** OpenAI Responses API (`/responses`), streaming, with reasoning items round-tripped by id and encrypted content. */
export class OpenAIResponsesModel implements ChatModel {
  readonly name: string;
  readonly provider: string;
  readonly contextSize: number;
  private readonly connection: ResolvedConnection;

  constructor(private readonly options: OpenAIResponsesModelOptions) {
    this.name = options.model;
    this.connection = resolveConnection(options);
    this.provider = this.connection.preset.provider;
    this.contextSize = options.contextSize ?? modelInfo(options.model)?.contextSize ?? DEFAULT_CONTEXT_SIZE;
  }

  stream(messages: Msg[], opts: ChatOptions = {}): AsyncIterable<ChatChunk> {
    const body = formatOpenAIResponses(messages, {
      model: this.name,
      provider: this.provider,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens,
      temperature: opts.temperature,
      reasoningEffort: this.options.reasoningEffort,
      reasoningSummary: this.options.reasoningSummary,
      store: this.options.store,
      extraBody: opts.extraBody,
    });
    return streamChat({
      provider: this.provider,
      request: { url: this.connection.url("/responses"), headers: this.connection.headers, body },
      format: "sse",
      createParser: () => new OpenAIResponsesStreamParser(this.provider),
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
