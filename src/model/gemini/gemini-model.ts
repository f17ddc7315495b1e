import type { Msg } from "../../message/index.js";
import type { NormalizeOptions } from "../normalize.js";
import { versionedBaseURL } from "../provider-kit/base-url.js";
import { countOrEstimate } from "../provider-kit/count-tokens.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import { type ProviderCall, type ProviderEndpoint, ProviderModel } from "../provider-kit/provider-model.js";
import { section } from "../provider-kit/sampling.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { TransportOptions } from "../transport/types.js";
import type {
  BuiltinTool,
  NativeStructuredOutput,
  ResponseFormat,
  SamplingOptions,
  ToolSchema,
} from "../types.js";
import { formatGemini } from "./gemini-format.js";
import { sanitizeGeminiSchema } from "./gemini-schema.js";
import { GeminiStreamParser } from "./gemini-stream.js";
import type { GeminiRequest } from "./gemini-wire.js";

export interface GeminiModelOptions extends TransportOptions {
  /** Google Search (`web_search`), `url_context`, `code_execution`, sent with every call. */
  builtinTools?: BuiltinTool[];
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
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

const CREDENTIAL_HINT = "GEMINI_API_KEY or the apiKey option";

/** Gemini through the Generative Language API (`streamGenerateContent?alt=sse`). */
export class GeminiModel extends ProviderModel<GeminiModelOptions, GeminiRequest> {
  readonly provider = "gemini";
  protected readonly samplingWire = {
    names: {
      topP: "topP",
      topK: "topK",
      stopSequences: "stopSequences",
      seed: "seed",
      presencePenalty: "presencePenalty",
      frequencyPenalty: "frequencyPenalty",
    },
    in: "generationConfig",
  };

  constructor(options: GeminiModelOptions) {
    super(options);
  }

  protected readonly credentialHint = CREDENTIAL_HINT;

  /** Keeps its own built-in tool runs (code execution parts go back as the server sent them). */
  protected override get normalization(): NormalizeOptions {
    return { provider: this.provider, keepProviderRuns: true };
  }

  protected endpoint(): ProviderEndpoint {
    const { apiKey, baseURL } = providerEndpoint("gemini", this.options);
    return {
      url: joinUrl(
        baseURL,
        `/models/${encodeURIComponent(this.options.model)}:streamGenerateContent?alt=sse`,
      ),
      apiKey,
    };
  }

  protected headers(endpoint: ProviderEndpoint): Record<string, string> {
    return { ...this.baseHeaders(endpoint.apiKey as string), accept: "text/event-stream" };
  }

  protected format(messages: Msg[], { opts }: ProviderCall): GeminiRequest {
    const o = this.options;
    return formatGemini(messages, {
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens ?? o.maxTokens,
      temperature: opts.temperature ?? o.temperature,
      thinkingBudget: o.thinkingBudget,
      extraBody: opts.extraBody,
    });
  }

  protected parser(): GeminiStreamParser {
    return new GeminiStreamParser();
  }

  /** The input tokens from `:countTokens` (of the whole generate request); the estimate when it fails. */
  countInputTokens(
    messages: Msg[],
    tools?: ToolSchema[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<number> {
    const o = this.options;
    return countOrEstimate(
      async () => {
        const { apiKey, baseURL } = providerEndpoint("gemini", this.options);
        const generate = await this.requestBody(messages, (msgs) => formatGemini(msgs, { tools }));
        const request = {
          url: joinUrl(baseURL, `/models/${encodeURIComponent(o.model)}:countTokens`),
          headers: this.baseHeaders(apiKey),
          body: { generateContentRequest: { model: `models/${o.model}`, ...generate } },
        };
        return this.postJson(request, opts.signal);
      },
      (body) => (body as { totalTokens?: number } | null)?.totalTokens,
      () => this.countTokens(messages, tools),
    );
  }

  /**
   * Gemini 3 takes `responseSchema` beside function declarations; Gemini 2.x rejects the pair
   * ("Function calling with a response mime type: 'application/json' is unsupported").
   */
  override get nativeStructuredOutput(): NativeStructuredOutput {
    return /^(models\/)?gemini-[3-9]/.test(this.name) ? "with_tools" : "without_tools";
  }

  /** JSON output constrained by `responseSchema` (the schema sanitised as for function declarations). */
  protected override applyResponseFormat(body: Record<string, unknown>, format: ResponseFormat): void {
    const config = section(body, "generationConfig");
    config.responseMimeType = "application/json";
    const schema = sanitizeGeminiSchema(format.schema);
    if (schema !== undefined) config.responseSchema = schema;
  }

  /** Google Search, URL context and code execution, as tool entries beside the function declarations. */
  protected override builtinToolWire = (tool: BuiltinTool): Record<string, unknown> | undefined =>
    tool.type === "web_search"
      ? { googleSearch: {} }
      : tool.type === "url_context"
        ? { urlContext: {} }
        : tool.type === "code_execution"
          ? { codeExecution: {} }
          : undefined;

  private baseHeaders(apiKey: string): Record<string, string> {
    return { "content-type": "application/json", "x-goog-api-key": apiKey, ...this.options.headers };
  }
}

/** `gemini:gemini-2.5-flash`: the base URL with an API version (`/v1beta` when none is given). */
export const geminiProvider: ModelProviderDefinition = {
  name: "gemini",
  baseURLVariable: "GEMINI_BASE_URL",
  normalizeBaseURL: (baseURL, field) => versionedBaseURL(baseURL, field, "gemini"),
  create: (settings) => new GeminiModel(settings),
  defaultModel: { model: "gemini-2.5-flash", when: "GEMINI_API_KEY" },
};
