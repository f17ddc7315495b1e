import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { streamChat } from "../transport/stream-chat.js";
import type { HttpRequest, TransportOptions, WireFormat, WireParser } from "../transport/types.js";
import type { BatchedChatStream, ChatChunk, ChatModel, ChatOptions, ToolSchema } from "../types.js";
import { lazyStream } from "./lazy-stream.js";

/** The options every native-API model takes: the model name, a context size override, transport settings. */
export interface ProviderModelOptions extends TransportOptions {
  model: string;
  contextSize?: number;
}

/**
 * What the native-API models (Anthropic, Gemini, Ollama, DashScope) share: the name, the context size
 * (option, else the model-info table, else a default), a stream built lazily on first iteration, the
 * transport call with the model's retry / timeout / fetch settings, and the token estimator.
 */
export abstract class ProviderModel<O extends ProviderModelOptions> implements ChatModel {
  readonly name: string;
  abstract readonly provider: string;
  readonly contextSize: number;

  constructor(
    protected readonly options: O,
    contextSize: { preferred?: number; fallback?: number } = {},
  ) {
    this.name = options.model;
    this.contextSize =
      options.contextSize ??
      contextSize.preferred ??
      modelInfo(options.model)?.contextSize ??
      contextSize.fallback ??
      DEFAULT_CONTEXT_SIZE;
  }

  stream(messages: Msg[], opts: ChatOptions = {}): BatchedChatStream {
    return lazyStream(() => this.send(messages, opts));
  }

  /** Builds and sends the request for one call (runs when the stream is first iterated). */
  protected abstract send(messages: Msg[], opts: ChatOptions): AsyncIterable<ChatChunk>;

  /** Streams `request` through the transport with this model's settings. */
  protected transport(
    request: HttpRequest,
    format: WireFormat,
    createParser: () => WireParser,
    opts: ChatOptions,
    credentialHint: string,
  ): BatchedChatStream {
    return streamChat({
      provider: this.provider,
      request,
      format,
      createParser,
      signal: opts.signal,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
      credentialHint,
    });
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }
}
