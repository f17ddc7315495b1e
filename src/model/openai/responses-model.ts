import type { Msg } from "../../message/index.js";
import type { NormalizeOptions } from "../normalize.js";
import { v1BaseURL } from "../provider-kit/base-url.js";
import type { ModelProviderDefinition } from "../provider-kit/provider-definition.js";
import type { ProviderCall } from "../provider-kit/provider-model.js";
import { openAIJsonSchema } from "../provider-kit/response-format.js";
import type { BuiltinTool, ResponseFormat } from "../types.js";
import { OpenAICompatibleModel } from "./compatible-model.js";
import type { OpenAIConnectionOptions } from "./connection.js";
import { formatOpenAIResponses, type OpenAIResponsesFormatOptions } from "./responses-format.js";
import { OpenAIResponsesStreamParser } from "./responses-stream.js";
import type { OpenAIResponsesRequest } from "./responses-wire.js";

export interface OpenAIResponsesModelOptions extends OpenAIConnectionOptions {
  reasoningEffort?: OpenAIResponsesFormatOptions["reasoningEffort"];
  reasoningSummary?: OpenAIResponsesFormatOptions["reasoningSummary"];
  /** `store` sent with every request (server default when unset). */
  store?: boolean;
  /**
   * Server-side conversation state: each request continues the last reply's response
   * (`previous_response_id`, kept on the reply Msg as `metadata.responseId`, so it survives in the
   * agent's state and a resumed session continues it) and sends only the input after it. Needs
   * responses to be stored (`store` true, the API's default).
   */
  conversationState?: boolean;
  /** Hosted tools: `web_search`, `file_search`, `code_execution` (code interpreter), `image_generation`. */
  builtinTools?: BuiltinTool[];
}

/**
 * Cuts `request.input` to what follows the last reply that has a response id (its trailing tool
 * outputs and the messages after it) and points `previous_response_id` at it.
 */
function continueConversation(
  request: OpenAIResponsesRequest,
  messages: Msg[],
  format: (messages: Msg[]) => OpenAIResponsesRequest["input"],
): void {
  let index = messages.length - 1;
  while (index >= 0 && typeof messages[index]?.metadata?.responseId !== "string") index--;
  if (index < 0) return;
  const prefix = format(messages.slice(0, index + 1));
  let trailing = 0;
  while (
    trailing < prefix.length &&
    (prefix[prefix.length - 1 - trailing] as { type?: string }).type === "function_call_output"
  ) {
    trailing++;
  }
  request.input = request.input.slice(prefix.length - trailing);
  request.previous_response_id = messages[index]?.metadata.responseId as string;
}

/** The Responses API's hosted tools. */
function hostedTool(tool: BuiltinTool): Record<string, unknown> | undefined {
  switch (tool.type) {
    case "web_search":
      return { type: "web_search" };
    case "file_search":
      return { type: "file_search", vector_store_ids: tool.vectorStoreIds };
    case "code_execution":
      return { type: "code_interpreter", container: { type: "auto" } };
    case "image_generation":
      return { type: "image_generation" };
    default:
      return undefined;
  }
}

/** OpenAI Responses API (`/responses`), streaming, with reasoning items round-tripped by id and encrypted content. */
export class OpenAIResponsesModel extends OpenAICompatibleModel<
  OpenAIResponsesModelOptions,
  OpenAIResponsesRequest
> {
  protected readonly path = "/responses";
  /** The Responses API samples with temperature and top_p only. */
  protected readonly samplingWire = { names: { topP: "top_p" } };
  protected override builtinToolWire = hostedTool;

  /** Keeps its own hosted tool runs (their items go back in place). */
  protected override get normalization(): NormalizeOptions {
    return { provider: this.provider, keepProviderRuns: true };
  }

  protected format(messages: Msg[], call: ProviderCall): OpenAIResponsesRequest {
    const { opts } = call;
    const formatOptions: OpenAIResponsesFormatOptions = {
      model: this.name,
      provider: this.provider,
      tools: opts.tools,
      toolChoice: opts.toolChoice,
      maxTokens: opts.maxTokens,
      temperature: opts.temperature,
      reasoningEffort: this.options.reasoningEffort,
      reasoningSummary: this.options.reasoningSummary,
      store: this.options.store,
      extraBody: opts.extraBody,
    };
    const request = formatOpenAIResponses(messages, formatOptions);
    if (this.options.conversationState) {
      continueConversation(
        request,
        call.messages,
        (prefix) => formatOpenAIResponses(this.normalized(prefix), formatOptions).input,
      );
    }
    return request;
  }

  protected parser(): OpenAIResponsesStreamParser {
    return new OpenAIResponsesStreamParser(this.provider);
  }

  protected override applyResponseFormat(body: Record<string, unknown>, format: ResponseFormat): void {
    body.text = { format: { type: "json_schema", ...openAIJsonSchema(format) } };
  }
}

/** `openai-responses:o3` (the Responses API; same server and variable as `openai`). */
export const openAIResponsesProvider: ModelProviderDefinition = {
  name: "openai-responses",
  baseURLVariable: "OPENAI_BASE_URL",
  normalizeBaseURL: (baseURL, field) => v1BaseURL(baseURL, field, "openai-responses"),
  create: (settings) => new OpenAIResponsesModel(settings),
};
