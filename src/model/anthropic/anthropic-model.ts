import type { Msg } from "../../message/index.js";
import { modelInfo } from "../model-info.js";
import type { NormalizeOptions } from "../normalize.js";
import { unversionedBaseURL } from "../provider-kit/base-url.js";
import { countOrEstimate } from "../provider-kit/count-tokens.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import { type ProviderCall, type ProviderEndpoint, ProviderModel } from "../provider-kit/provider-model.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { TransportOptions } from "../transport/types.js";
import type { BuiltinTool, SamplingOptions, ToolSchema } from "../types.js";
import type { AnthropicCacheOptions } from "./anthropic-cache.js";
import { formatAnthropic } from "./anthropic-format.js";
import { AnthropicStreamParser } from "./anthropic-stream.js";
import type { AnthropicRequest } from "./anthropic-wire.js";

export interface AnthropicModelOptions extends TransportOptions {
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /** `claude-sonnet-4-5`, `claude-opus-4-1`, ... */
  model: string;
  /** Defaults to ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** Defaults to ANTHROPIC_BASE_URL, else https://api.anthropic.com. */
  baseURL?: string;
  /** The `anthropic-version` header. Default 2023-06-01. */
  anthropicVersion?: string;
  /** Extra headers on every request (e.g. `anthropic-beta`). */
  headers?: Record<string, string>;
  /** Default output limit when a call does not set `maxTokens` (Anthropic requires one). */
  maxTokens?: number;
  /** Enables extended thinking with this budget in tokens. */
  thinkingBudget?: number;
  temperature?: number;
  /** Overrides the context window from the model table. */
  contextSize?: number;
  /**
   * Prompt caching: `cache_control` breakpoints on the system prompt, the tools and the conversation
   * tail (the default), configurable per place; `false` sends none.
   */
  cache?: AnthropicCacheOptions | false;
  /** Server tools: `web_search`, `web_fetch`, `code_execution` (their beta headers are added). */
  builtinTools?: BuiltinTool[];
}

/** Anthropic's server tools, and the beta each needs. */
const SERVER_TOOLS: Partial<Record<BuiltinTool["type"], { wire: Record<string, unknown>; beta?: string }>> = {
  web_search: { wire: { type: "web_search_20250305", name: "web_search" } },
  web_fetch: { wire: { type: "web_fetch_20250910", name: "web_fetch" }, beta: "web-fetch-2025-09-10" },
  code_execution: {
    wire: { type: "code_execution_20250825", name: "code_execution" },
    beta: "code-execution-2025-08-25",
  },
};

const CREDENTIAL_HINT = "ANTHROPIC_API_KEY or the apiKey option";

/** Claude through the Anthropic Messages API, streamed over SSE with our own transport. */
export class AnthropicModel extends ProviderModel<AnthropicModelOptions, AnthropicRequest> {
  readonly provider = "anthropic";
  protected readonly samplingWire = {
    names: { topP: "top_p", topK: "top_k", stopSequences: "stop_sequences" },
  };
  private readonly maxTokens: number;

  constructor(options: AnthropicModelOptions) {
    super(options, { fallback: 200_000 });
    const info = modelInfo(options.model);
    this.maxTokens = options.maxTokens ?? info?.maxOutputTokens ?? 8_192;
  }

  protected readonly credentialHint = CREDENTIAL_HINT;

  /** Keeps its own built-in tool runs (their blocks go back as the server sent them). */
  protected override get normalization(): NormalizeOptions {
    return { provider: this.provider, keepProviderRuns: true };
  }

  protected endpoint(): ProviderEndpoint {
    const { apiKey, baseURL } = providerEndpoint("anthropic", this.options);
    return { url: joinUrl(baseURL, "/v1/messages"), apiKey };
  }

  protected headers(endpoint: ProviderEndpoint): Record<string, string> {
    return { ...this.baseHeaders(endpoint.apiKey as string), accept: "text/event-stream" };
  }

  protected format(messages: Msg[], { opts }: ProviderCall): AnthropicRequest {
    const o = this.options;
    return formatAnthropic(messages, {
      model: o.model,
      maxTokens: opts.maxTokens ?? this.maxTokens,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      temperature: opts.temperature ?? o.temperature,
      thinkingBudget: o.thinkingBudget,
      cache: o.cache ?? {},
      extraBody: opts.extraBody,
    });
  }

  protected parser(): AnthropicStreamParser {
    return new AnthropicStreamParser();
  }

  /** The input tokens from `/v1/messages/count_tokens`; the estimate when the endpoint fails. */
  countInputTokens(
    messages: Msg[],
    tools?: ToolSchema[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<number> {
    const o = this.options;
    return countOrEstimate(
      async () => {
        const { apiKey, baseURL } = providerEndpoint("anthropic", this.options);
        const full = await this.requestBody(messages, (msgs) =>
          formatAnthropic(msgs, {
            model: o.model,
            maxTokens: this.maxTokens,
            tools,
            thinkingBudget: o.thinkingBudget,
          }),
        );
        // count_tokens takes the prompt fields only (no max_tokens, stream or sampling).
        const body: Record<string, unknown> = { model: full.model, messages: full.messages };
        if (full.system !== undefined) body.system = full.system;
        if (full.tools !== undefined) body.tools = full.tools;
        if (full.thinking !== undefined) body.thinking = full.thinking;
        const request = {
          url: joinUrl(baseURL, "/v1/messages/count_tokens"),
          headers: this.baseHeaders(apiKey),
          body,
        };
        return this.postJson(request, opts.signal);
      },
      (body) => (body as { input_tokens?: number } | null)?.input_tokens,
      () => this.countTokens(messages, tools),
    );
  }

  protected override builtinToolWire = (tool: BuiltinTool): Record<string, unknown> | undefined => {
    const server = SERVER_TOOLS[tool.type];
    if (server === undefined) return undefined;
    return tool.type === "web_search" && tool.maxUses !== undefined
      ? { ...server.wire, max_uses: tool.maxUses }
      : server.wire;
  };

  private baseHeaders(apiKey: string): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-api-key": apiKey,
      "anthropic-version": this.options.anthropicVersion ?? "2023-06-01",
    };
    const betas = (this.options.builtinTools ?? []).flatMap((tool) => SERVER_TOOLS[tool.type]?.beta ?? []);
    if (betas.length > 0) headers["anthropic-beta"] = [...new Set(betas)].join(",");
    return { ...headers, ...this.options.headers };
  }
}

/** `anthropic:claude-sonnet-4-5`: the base URL without the `/v1` its paths add. */
export const anthropicProvider: ModelProviderDefinition = {
  name: "anthropic",
  baseURLVariable: "ANTHROPIC_BASE_URL",
  normalizeBaseURL: (baseURL, field) => unversionedBaseURL(baseURL, field, "anthropic"),
  create: (settings) => new AnthropicModel(settings),
  defaultModel: { model: "claude-sonnet-4-5", when: "ANTHROPIC_API_KEY" },
};
