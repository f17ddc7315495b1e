import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { hasLocalFiles, inlineLocalFiles } from "../local-files.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { streamChat } from "../transport/stream-chat.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatModel, ChatOptions, NativeStructuredOutput, ToolSchema } from "../types.js";
import { type OpenAIConnectionOptions, type ResolvedConnection, resolveConnection } from "./connection.js";

/** What OpenAIChatModel and OpenAIResponsesModel share: connection, context size, sending, counting. */
export abstract class OpenAIBaseModel implements ChatModel {
  readonly name: string;
  readonly provider: string;
  readonly contextSize: number;
  readonly nativeStructuredOutput: NativeStructuredOutput | undefined;
  protected readonly connection: ResolvedConnection;

  constructor(protected readonly connectionOptions: OpenAIConnectionOptions) {
    this.name = connectionOptions.model;
    this.connection = resolveConnection(connectionOptions);
    this.provider = this.connection.preset.provider;
    // OpenAI takes response_format / text.format beside tools; compatible servers differ.
    this.nativeStructuredOutput =
      connectionOptions.nativeStructuredOutput ?? (this.provider === "openai" ? "with_tools" : undefined);
    this.contextSize =
      connectionOptions.contextSize ??
      modelInfo(connectionOptions.model)?.contextSize ??
      DEFAULT_CONTEXT_SIZE;
  }

  abstract stream(messages: Msg[], opts?: ChatOptions): AsyncIterable<ChatChunk>;

  /** The request body: formatted at once, or after `file:` attachments are read (formatters stay pure). */
  protected body<T>(messages: Msg[], format: (messages: Msg[]) => T): T | Promise<T> {
    if (!hasLocalFiles(messages)) return format(messages);
    const pending = inlineLocalFiles(messages).then(format);
    pending.catch(() => {}); // surfaces when the stream is iterated, never as an unhandled rejection
    return pending;
  }

  /** POSTs `body` to `path` and streams the SSE reply through a fresh parser per attempt. */
  protected send(path: string, body: unknown, createParser: () => WireParser, opts: ChatOptions) {
    const options = this.connectionOptions;
    return streamChat({
      provider: this.provider,
      request: { url: this.connection.url(path), headers: this.connection.headers, body },
      format: "sse",
      createParser,
      signal: opts.signal,
      credentialHint: this.connection.credentialHint,
      transport: options.transport,
      fetch: options.fetch,
      maxRetries: options.maxRetries,
      timeout: options.timeout,
    });
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }
}
