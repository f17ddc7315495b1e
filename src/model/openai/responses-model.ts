import type { Msg } from "../../message/index.js";
import { builtinToolsFor } from "../provider-kit/builtin-tools.js";
import { lazyStream } from "../provider-kit/lazy-stream.js";
import { checkResponseFormat, openAIJsonSchema } from "../provider-kit/response-format.js";
import { applySampling, mergeSampling } from "../provider-kit/sampling.js";
import type { BuiltinTool, ChatChunk, ChatOptions } from "../types.js";
import { OpenAIBaseModel } from "./base-model.js";
import type { OpenAIConnectionOptions } from "./connection.js";
import { formatOpenAIResponses, type OpenAIResponsesFormatOptions } from "./responses-format.js";
import { OpenAIResponsesStreamParser } from "./responses-stream-parser.js";
import type { OpenAIResponsesRequest } from "./responses-types.js";

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
export class OpenAIResponsesModel extends OpenAIBaseModel {
  constructor(private readonly options: OpenAIResponsesModelOptions) {
    super(options);
  }

  stream(messages: Msg[], opts: ChatOptions = {}): AsyncIterable<ChatChunk> {
    return lazyStream(() => this.sendResponses(messages, opts));
  }

  private sendResponses(messages: Msg[], opts: ChatOptions): AsyncIterable<ChatChunk> {
    const sampling = mergeSampling(this.options.sampling, opts);
    const body = this.body(messages, (msgs) => {
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
      const request = formatOpenAIResponses(msgs, formatOptions);
      // The Responses API samples with temperature and top_p only.
      applySampling(this.provider, sampling, { topP: "top_p" }, request);
      if (this.options.conversationState)
        continueConversation(request, msgs, (prefix) => formatOpenAIResponses(prefix, formatOptions).input);
      const hosted = builtinToolsFor(this.provider, this.options.builtinTools, hostedTool);
      if (hosted.length > 0) request.tools = [...(request.tools ?? []), ...(hosted as never[])];
      if (opts.responseFormat !== undefined) {
        const format = checkResponseFormat(this.provider, opts.responseFormat);
        request.text = { format: { type: "json_schema", ...openAIJsonSchema(format) } };
      }
      return request;
    });
    return this.send("/responses", body, () => new OpenAIResponsesStreamParser(this.provider), opts);
  }
}
