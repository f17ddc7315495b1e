import { type ProviderEndpoint, ProviderModel } from "../provider-kit/provider-model.js";
import type { NativeStructuredOutput } from "../types.js";
import { type OpenAIConnectionOptions, type ResolvedConnection, resolveConnection } from "./connection.js";

/**
 * A ProviderModel on an OpenAI-compatible server: the connection (preset, base URL, auth headers,
 * query) resolved once at construction, so a bad base URL fails where the model is made. Chat
 * Completions and Responses extend it with their path, format and parser.
 */
export abstract class OpenAICompatibleModel<
  O extends OpenAIConnectionOptions,
  Body extends object,
> extends ProviderModel<O, Body> {
  readonly provider: string;
  protected readonly connection: ResolvedConnection;
  protected readonly credentialHint: string;
  readonly #nativeStructuredOutput: NativeStructuredOutput | undefined;

  /** The API path of the streaming request (`/chat/completions`, `/responses`). */
  protected abstract readonly path: string;

  constructor(options: O) {
    super(options);
    this.connection = resolveConnection(options);
    this.provider = this.connection.preset.provider;
    this.credentialHint = this.connection.credentialHint;
    // OpenAI takes response_format / text.format beside tools; compatible servers differ.
    this.#nativeStructuredOutput =
      options.nativeStructuredOutput ?? (this.provider === "openai" ? "with_tools" : undefined);
  }

  override get nativeStructuredOutput(): NativeStructuredOutput | undefined {
    return this.#nativeStructuredOutput;
  }

  protected endpoint(): ProviderEndpoint {
    return { url: this.connection.url(this.path) };
  }

  protected headers(): Record<string, string> {
    return this.connection.headers;
  }
}

/** @deprecated The OpenAI models' former base; extend ProviderModel (agentscope/model/kit) or OpenAICompatibleModel. */
export const OpenAIBaseModel = OpenAICompatibleModel;
/** @deprecated See OpenAICompatibleModel. */
export type OpenAIBaseModel = OpenAICompatibleModel<OpenAIConnectionOptions, object>;
