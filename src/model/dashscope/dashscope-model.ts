import type { Msg } from "../../message/index.js";
import { v1BaseURL } from "../provider-kit/base-url.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import { type ProviderCall, type ProviderEndpoint, ProviderModel } from "../provider-kit/provider-model.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { TransportOptions } from "../transport/types.js";
import type { SamplingOptions } from "../types.js";
import { formatDashScope, hasMedia } from "./dashscope-format.js";
import { DashScopeStreamParser } from "./dashscope-stream.js";
import type { DashScopeRequest } from "./dashscope-wire.js";

export interface DashScopeModelOptions extends TransportOptions {
  /** Default sampling options of every call (a call's own values win). */
  sampling?: SamplingOptions;
  /** `qwen-plus`, `qwen3-max`, `qwen-vl-max`, ... */
  model: string;
  /** Defaults to DASHSCOPE_API_KEY. */
  apiKey?: string;
  /** Defaults to DASHSCOPE_BASE_URL, else https://dashscope.aliyuncs.com/api/v1 (international: https://dashscope-intl.aliyuncs.com/api/v1). */
  baseURL?: string;
  headers?: Record<string, string>;
  /** Qwen3 hybrid thinking (`enable_thinking`); the reasoning streams as thinking. */
  enableThinking?: boolean;
  thinkingBudget?: number;
  /** Use the multimodal-generation endpoint (content lists) even for text; default: only when media is sent. */
  multimodal?: boolean;
  maxTokens?: number;
  temperature?: number;
  contextSize?: number;
}

/** Qwen and other Model Studio models through DashScope's native generation API (SSE). */
export class DashScopeModel extends ProviderModel<DashScopeModelOptions, DashScopeRequest> {
  readonly provider = "dashscope";
  protected readonly samplingWire = {
    names: {
      topP: "top_p",
      topK: "top_k",
      stopSequences: "stop",
      seed: "seed",
      presencePenalty: "presence_penalty",
    },
    in: "parameters",
  };

  constructor(options: DashScopeModelOptions) {
    super(options);
  }

  protected readonly credentialHint = "DASHSCOPE_API_KEY or the apiKey option";

  /** The multimodal-generation endpoint takes content lists: used when asked, else when media is sent. */
  private multimodal(messages: Msg[]): boolean {
    return this.options.multimodal ?? hasMedia(messages);
  }

  protected endpoint({ messages }: ProviderCall): ProviderEndpoint {
    const { apiKey, baseURL } = providerEndpoint("dashscope", this.options);
    const path = this.multimodal(messages)
      ? "/services/aigc/multimodal-generation/generation"
      : "/services/aigc/text-generation/generation";
    return { url: joinUrl(baseURL, path), apiKey };
  }

  protected headers(endpoint: ProviderEndpoint): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${endpoint.apiKey}`,
      "x-dashscope-sse": "enable",
      ...this.options.headers,
    };
  }

  protected format(messages: Msg[], call: ProviderCall): DashScopeRequest {
    const { opts } = call;
    const o = this.options;
    return formatDashScope(messages, {
      model: o.model,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens ?? o.maxTokens,
      temperature: opts.temperature ?? o.temperature,
      enableThinking: o.enableThinking,
      thinkingBudget: o.thinkingBudget,
      multimodal: this.multimodal(call.messages),
      extraBody: opts.extraBody,
    });
  }

  protected parser(): DashScopeStreamParser {
    return new DashScopeStreamParser();
  }
}

/** `dashscope:qwen-plus`. */
export const dashScopeProvider: ModelProviderDefinition = {
  name: "dashscope",
  baseURLVariable: "DASHSCOPE_BASE_URL",
  normalizeBaseURL: (baseURL, field) => v1BaseURL(baseURL, field, "dashscope"),
  create: (settings) => new DashScopeModel(settings),
  defaultModel: { model: "qwen-plus", when: "DASHSCOPE_API_KEY" },
};
