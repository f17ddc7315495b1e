import type { Msg } from "../../message/index.js";
import { ollamaHostURL, plainBaseURL } from "../provider-kit/base-url.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import { type ProviderCall, type ProviderEndpoint, ProviderModel } from "../provider-kit/provider-model.js";
import { joinUrl, setting } from "../provider-kit/settings.js";
import type { TransportOptions } from "../transport/types.js";
import type { NativeStructuredOutput, ResponseFormat, SamplingOptions } from "../types.js";
import { formatOllama, type OllamaFormatOptions } from "./ollama-format.js";
import { OllamaStreamParser } from "./ollama-stream.js";
import type { OllamaRequest } from "./ollama-wire.js";

export interface OllamaModelOptions extends TransportOptions {
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /** `llama3.1`, `qwen3:14b`, ... */
  model: string;
  /** Defaults to OLLAMA_HOST, else http://127.0.0.1:11434 (a host without scheme gets http://). */
  host?: string;
  /** Sent as a bearer token when set (hosted Ollama); defaults to OLLAMA_API_KEY. */
  apiKey?: string;
  headers?: Record<string, string>;
  /** `think` for thinking models: true/false, or a level for models that take one. */
  think?: OllamaFormatOptions["think"];
  temperature?: number;
  maxTokens?: number;
  /** Context window Ollama allocates (`num_ctx`); also this model's `contextSize` when set. */
  numCtx?: number;
  keepAlive?: string | number;
  contextSize?: number;
}

/**
 * A host URL from OLLAMA_HOST-style values (`0.0.0.0:11434`, `localhost`, `http://...`). Another
 * scheme (`ftp:`, `file:`) or an empty value is an error naming `field`.
 */
export function ollamaBaseUrl(host: string, field = "host"): string {
  return ollamaHostURL(host, field).replace("//0.0.0.0", "//127.0.0.1");
}

/** The server of an Ollama model: the `host` option, else OLLAMA_HOST, else http://127.0.0.1:11434. */
export function ollamaHostOf(option: string | undefined): string {
  if (option !== undefined) return ollamaBaseUrl(option, "host");
  const fromEnv = process.env.OLLAMA_HOST;
  return fromEnv ? ollamaBaseUrl(fromEnv, "OLLAMA_HOST") : "http://127.0.0.1:11434";
}

/** A local model through Ollama's native /api/chat (NDJSON streaming). */
export class OllamaModel extends ProviderModel<OllamaModelOptions, OllamaRequest> {
  readonly provider = "ollama";
  protected readonly samplingWire = {
    names: {
      topP: "top_p",
      topK: "top_k",
      stopSequences: "stop",
      seed: "seed",
      presencePenalty: "presence_penalty",
      frequencyPenalty: "frequency_penalty",
    },
    in: "options",
  };

  constructor(options: OllamaModelOptions) {
    super(options, { preferred: options.numCtx });
  }

  /** Ollama constrains the output with the JSON Schema in `format`. */
  /** `format` is a grammar on the whole reply, so it is sent only on a call without tools. */
  override get nativeStructuredOutput(): NativeStructuredOutput {
    return "without_tools";
  }

  protected override applyResponseFormat(body: Record<string, unknown>, format: ResponseFormat): void {
    body.format = format.schema;
  }

  protected readonly credentialHint = "OLLAMA_API_KEY or the apiKey option (only hosted Ollama needs one)";
  protected override readonly wireFormat = "ndjson";

  protected endpoint(): ProviderEndpoint {
    const url = joinUrl(ollamaHostOf(this.options.host), "/api/chat");
    const apiKey = setting(this.options.apiKey, "OLLAMA_API_KEY");
    return apiKey === undefined ? { url } : { url, apiKey };
  }

  protected headers(endpoint: ProviderEndpoint): Record<string, string> {
    const headers: Record<string, string> = { "content-type": "application/json", ...this.options.headers };
    if (endpoint.apiKey !== undefined) headers.authorization = `Bearer ${endpoint.apiKey}`;
    return headers;
  }

  protected format(messages: Msg[], { opts }: ProviderCall): OllamaRequest {
    const o = this.options;
    return formatOllama(messages, {
      model: o.model,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens ?? o.maxTokens,
      temperature: opts.temperature ?? o.temperature,
      numCtx: o.numCtx,
      think: o.think,
      keepAlive: o.keepAlive,
      extraBody: opts.extraBody,
    });
  }

  protected parser(): OllamaStreamParser {
    return new OllamaStreamParser();
  }
}

/** `ollama:llama3.2`: the base URL in OLLAMA_HOST's forms (a host without scheme gets http://) is the host. */
export const ollamaProvider: ModelProviderDefinition = {
  name: "ollama",
  baseURLVariable: "OLLAMA_HOST",
  normalizeBaseURL: (baseURL, field) => plainBaseURL(ollamaHostURL(baseURL, field), field, "ollama"),
  create: ({ baseURL, ...settings }) => new OllamaModel(baseURL ? { ...settings, host: baseURL } : settings),
  defaultModel: { model: "llama3.2", when: "OLLAMA_HOST" },
};
