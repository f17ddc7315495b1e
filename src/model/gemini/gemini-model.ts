import type { Msg } from "../../message/index.js";
import { estimateTokens } from "../estimate-tokens.js";
import { DEFAULT_CONTEXT_SIZE, modelInfo } from "../model-info.js";
import { lazyStream } from "../provider-kit/lazy-stream.js";
import { requestBody } from "../provider-kit/request-body.js";
import { joinUrl, requireApiKey, setting } from "../provider-kit/settings.js";
import { streamChat } from "../transport/stream-chat.js";
import type { TransportOptions } from "../transport/types.js";
import type { ChatChunk, ChatModel, ChatOptions, ToolSchema } from "../types.js";
import { formatGemini } from "./gemini-format.js";
import { GeminiStreamParser } from "./gemini-stream.js";

export interface GeminiModelOptions extends TransportOptions {
  /** `gemini-2.5-flash`, `gemini-2.5-pro`, ... */
  model: string;
  /** Defaults to GEMINI_API_KEY (then GOOGLE_API_KEY). Sent as `x-goog-api-key`. */
  apiKey?: string;
  /** Defaults to GEMINI_BASE_URL, else https://generativelanguage.googleapis.com/v1beta. */
  baseURL?: string;
  headers?: Record<string, string>;
  maxTokens?: number;
  temperature?: number;
  /** Thinking budget in tokens (0 = off where the model allows); thought summaries are streamed. */
  thinkingBudget?: number;
  contextSize?: number;
}

/** Gemini through the Generative Language API (`streamGenerateContent?alt=sse`). */
export class GeminiModel implements ChatModel {
  readonly name: string;
  readonly provider = "gemini";
  readonly contextSize: number;

  constructor(private readonly options: GeminiModelOptions) {
    this.name = options.model;
    this.contextSize = options.contextSize ?? modelInfo(options.model)?.contextSize ?? DEFAULT_CONTEXT_SIZE;
  }

  stream(messages: Msg[], opts: ChatOptions = {}): AsyncIterable<ChatChunk> {
    return lazyStream(() => this.send(messages, opts));
  }

  private send(messages: Msg[], opts: ChatOptions): AsyncIterable<ChatChunk> {
    const o = this.options;
    const apiKey = requireApiKey(
      setting(o.apiKey, "GEMINI_API_KEY", process.env.GOOGLE_API_KEY),
      "Gemini",
      "GEMINI_API_KEY",
    );
    const baseURL = setting(
      o.baseURL,
      "GEMINI_BASE_URL",
      "https://generativelanguage.googleapis.com/v1beta",
    ) as string;
    const body = requestBody(messages, this.provider, (msgs) =>
      formatGemini(msgs, {
        tools: opts.tools,
        toolChoice: opts.toolChoice,
        maxTokens: opts.maxTokens ?? o.maxTokens,
        temperature: opts.temperature ?? o.temperature,
        thinkingBudget: o.thinkingBudget,
        extraBody: opts.extraBody,
      }),
    );
    return streamChat({
      provider: this.provider,
      request: {
        url: joinUrl(baseURL, `/models/${encodeURIComponent(o.model)}:streamGenerateContent?alt=sse`),
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          "x-goog-api-key": apiKey,
          ...o.headers,
        },
        body,
      },
      format: "sse",
      createParser: () => new GeminiStreamParser(),
      signal: opts.signal,
      fetch: o.fetch,
      maxRetries: o.maxRetries,
      timeout: o.timeout,
      credentialHint: "GEMINI_API_KEY or the apiKey option",
    });
  }

  countTokens(messages: Msg[], tools?: ToolSchema[]): number {
    return estimateTokens(messages, tools);
  }
}
