import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { requestJson } from "../transport/request-json.js";
import { streamChat } from "../transport/stream-chat.js";
import type { HttpRequest, TransportOptions, WireFormat, WireParser } from "../transport/types.js";
import type {
  BatchedChatStream,
  BuiltinTool,
  ChatChunk,
  ChatModel,
  ChatOptions,
  NativeStructuredOutput,
  ResponseFormat,
  SamplingOptions,
  ToolSchema,
} from "../types.js";
import { type BuiltinToolMapping, builtinToolsFor } from "./builtin-tools.js";
import { lazyStream } from "./lazy-stream.js";
import { checkResponseFormat, unsupportedResponseFormat } from "./response-format.js";
import { applySampling, mergeSampling, type SamplingWireNames, section } from "./sampling.js";

/** The options every native-API model takes: the model name, a context size override, transport settings. */
export interface ProviderModelOptions extends TransportOptions {
  model: string;
  contextSize?: number;
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /** Tools the provider runs itself (see BuiltinTool), sent with every call. */
  builtinTools?: BuiltinTool[];
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

  /**
   * The provider's names for the sampling options it has, and the body key that holds them
   * (undefined: the top level). Options not named are rejected.
   */
  protected abstract readonly samplingWire: { names: SamplingWireNames; in?: string };

  /**
   * `body` with the call's options the formatter does not take written in: sampling (the call's over
   * the model's defaults; see applySampling) and the native structured output `responseFormat`.
   */
  protected withCallOptions<T extends object>(opts: ChatOptions, body: T): T {
    const builtins = builtinToolsFor(this.provider, this.options.builtinTools, this.builtinToolWire);
    if (builtins.length > 0) {
      const record = body as Record<string, unknown>;
      record.tools = [...((record.tools as unknown[] | undefined) ?? []), ...builtins];
    }
    if (opts.responseFormat !== undefined) {
      this.applyResponseFormat(
        body as Record<string, unknown>,
        checkResponseFormat(this.provider, opts.responseFormat),
      );
    }
    const sampling = mergeSampling(this.options.sampling, opts);
    if (Object.keys(sampling).length === 0) return body;
    const { names, in: key } = this.samplingWire;
    applySampling(
      this.provider,
      sampling,
      names,
      key === undefined ? (body as Record<string, unknown>) : section(body, key),
    );
    return body;
  }

  /** The wire form of each built-in tool the provider has (default: none). */
  protected builtinToolWire: BuiltinToolMapping = () => undefined;

  /** Native structured output support; providers that implement applyResponseFormat override it. */
  get nativeStructuredOutput(): NativeStructuredOutput {
    return false;
  }

  /** Writes a native structured-output request into `body`; providers without one reject it. */
  protected applyResponseFormat(_body: Record<string, unknown>, _format: ResponseFormat): void {
    throw unsupportedResponseFormat(this.provider);
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
      transport: this.options.transport,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
      credentialHint,
    });
  }

  /** One JSON request (token counting) with this model's retry / timeout / fetch settings. */
  protected postJson(
    request: HttpRequest,
    signal: AbortSignal | undefined,
    credentialHint: string,
  ): Promise<unknown> {
    return requestJson({
      provider: this.provider,
      request,
      signal,
      credentialHint,
      transport: this.options.transport,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
    });
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }
}
