import type { Msg } from "../../message/index.js";
import { ProviderModel } from "../provider-kit/provider-model.js";
import { requestBody } from "../provider-kit/request-body.js";
import { joinUrl, providerEndpoint } from "../provider-kit/settings.js";
import type { TransportOptions } from "../transport/types.js";
import type { ChatChunk, ChatOptions, SamplingOptions } from "../types.js";
import { formatDashScope, hasMedia } from "./dashscope-format.js";
import { DashScopeStreamParser } from "./dashscope-stream.js";

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
export class DashScopeModel extends ProviderModel<DashScopeModelOptions> {
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

  protected send(messages: Msg[], opts: ChatOptions): AsyncIterable<ChatChunk> {
    const o = this.options;
    const { apiKey, baseURL } = providerEndpoint("dashscope", o);
    const multimodal = o.multimodal ?? hasMedia(messages);
    const body = requestBody(messages, this.provider, (msgs) =>
      this.withCallOptions(
        opts,
        formatDashScope(msgs, {
          model: o.model,
          tools: opts.tools,
          toolChoice: opts.toolChoice,
          maxTokens: opts.maxTokens ?? o.maxTokens,
          temperature: opts.temperature ?? o.temperature,
          enableThinking: o.enableThinking,
          thinkingBudget: o.thinkingBudget,
          multimodal,
          extraBody: opts.extraBody,
        }),
      ),
    );
    const path = multimodal
      ? "/services/aigc/multimodal-generation/generation"
      : "/services/aigc/text-generation/generation";
    return this.transport(
      {
        url: joinUrl(baseURL, path),
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          authorization: `Bearer ${apiKey}`,
          "x-dashscope-sse": "enable",
          ...o.headers,
        },
        body,
      },
      "sse",
      () => new DashScopeStreamParser(),
      opts,
      "DASHSCOPE_API_KEY or the apiKey option",
    );
  }
}
