import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { type NormalizeOptions, normalizeMessages } from "../normalize.js";
import { requestJson } from "../transport/request-json.js";
import { streamChat } from "../transport/stream-chat.js";
import type { HttpRequest, TransportOptions, WireFormat, WireParser } from "../transport/types.js";
import type {
  BatchedChatStream,
  BuiltinTool,
  ChatModel,
  ChatOptions,
  NativeStructuredOutput,
  ResponseFormat,
  SamplingOptions,
  ToolSchema,
} from "../types.js";
import { type BuiltinToolMapping, builtinToolsFor } from "./builtin-tools.js";
import { lazyStream } from "./lazy-stream.js";
import { requestBody } from "./request-body.js";
import { checkResponseFormat, unsupportedResponseFormat } from "./response-format.js";
import { applySampling, mergeSampling, type SamplingWireNames, section } from "./sampling.js";

/** The options every provider model takes: the model name, a context size override, transport settings. */
export interface ProviderModelOptions extends TransportOptions {
  model: string;
  contextSize?: number;
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /** Tools the provider runs itself (see BuiltinTool), sent with every call. */
  builtinTools?: BuiltinTool[];
}

/** One `stream()` call as the template hooks see it: the history as given and the call's options. */
export interface ProviderCall {
  readonly messages: Msg[];
  readonly opts: ChatOptions;
}

/**
 * Where one call goes. Resolved when the stream is first iterated, so a missing key or a bad base
 * URL fails where the caller iterates; `apiKey` is what `headers()` sends (none for keyless servers).
 */
export interface ProviderEndpoint {
  url: string;
  apiKey?: string;
}

/**
 * The one base of every provider model (a template). A provider says where a call goes
 * (`endpoint`), with which headers (`headers`), how normalised history becomes its request body
 * (`format`, pure), how its wire frames become chunks (`parser`, a fresh one per attempt), and
 * optionally how its server counts input tokens (`countInputTokens`, with `requestBody` and
 * `postJson`). The base does the rest, the same for every provider: history normalised in one
 * place (normalizeMessages, with `normalization`), `file:` attachments read, the call's sampling,
 * built-in tools and native structured output written in, a stream built lazily on first iteration,
 * retries / timeout / transport, the context size (option, else the model-info table, else a
 * default) and the local token estimate.
 *
 * Contract: `format` never sees un-normalised history and never normalises; `parser` returns a
 * parser that turns the provider's frames into deltas with stable block ids and one final chunk.
 */
export abstract class ProviderModel<O extends ProviderModelOptions, Body extends object = object>
  implements ChatModel
{
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

  /** Where a call goes and the credential it carries (resolved per call). */
  protected abstract endpoint(call: ProviderCall): ProviderEndpoint;

  /** The headers of the streaming request to `endpoint`. */
  protected abstract headers(endpoint: ProviderEndpoint, call: ProviderCall): Record<string, string>;

  /** Normalised history → the provider's request body (pure; the call's options are in `call.opts`). */
  protected abstract format(messages: Msg[], call: ProviderCall): Body;

  /** A fresh parser of the provider's stream (one per attempt). */
  protected abstract parser(): WireParser;

  /** Where the key goes, named in the error when the server rejects it (e.g. `ACME_API_KEY or the apiKey option`). */
  protected abstract readonly credentialHint: string;

  /** The wire framing of the stream: `sse` (default) or `ndjson`. */
  protected readonly wireFormat: WireFormat = "sse";

  /**
   * The provider's names for the sampling options it has, and the body key that holds them
   * (undefined: the top level). Options not named are rejected.
   */
  protected abstract readonly samplingWire: { names: SamplingWireNames; in?: string };

  /** How history is normalised for this provider (default: thinking of other providers becomes text). */
  protected get normalization(): NormalizeOptions {
    return { provider: this.provider };
  }

  stream(messages: Msg[], opts: ChatOptions = {}): BatchedChatStream {
    return lazyStream(() => this.open({ messages, opts }));
  }

  private open(call: ProviderCall): BatchedChatStream {
    const endpoint = this.endpoint(call);
    const body = this.requestBody(call.messages, (msgs) =>
      this.withCallOptions(call.opts, this.format(msgs, call)),
    );
    return streamChat({
      provider: this.provider,
      request: { url: endpoint.url, headers: this.headers(endpoint, call), body },
      format: this.wireFormat,
      createParser: () => this.parser(),
      signal: call.opts.signal,
      transport: this.options.transport,
      fetch: this.options.fetch,
      maxRetries: this.options.maxRetries,
      timeout: this.options.timeout,
      credentialHint: this.credentialHint,
    });
  }

  /** History normalised for this provider (what `format` receives), for a formatter call of the model's own. */
  protected normalized(messages: readonly Msg[]): Msg[] {
    return normalizeMessages(messages, this.normalization);
  }

  /**
   * History → a body: normalised (see `normalization`), `file:` attachments read (the body is then a
   * Promise the transport awaits), then `format`. For requests beside the stream (token counting).
   */
  protected requestBody<T>(messages: Msg[], format: (normalized: Msg[]) => T): T | Promise<T> {
    return requestBody(messages, this.normalization, format);
  }

  /**
   * `body` with the call's options the formatter does not take written in: built-in tools, native
   * structured output `responseFormat`, and sampling (the call's over the model's defaults).
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
  get nativeStructuredOutput(): NativeStructuredOutput | undefined {
    return false;
  }

  /** Writes a native structured-output request into `body`; providers without one reject it. */
  protected applyResponseFormat(_body: Record<string, unknown>, _format: ResponseFormat): void {
    throw unsupportedResponseFormat(this.provider);
  }

  /** One JSON request (token counting) with this model's retry / timeout / fetch settings. */
  protected postJson(request: HttpRequest, signal: AbortSignal | undefined): Promise<unknown> {
    return requestJson({
      provider: this.provider,
      request,
      signal,
      credentialHint: this.credentialHint,
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
