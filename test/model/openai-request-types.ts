/**
 * Compile-time check (tsc, not vitest): our formatters' bodies are valid requests for the official
 * `openai` SDK's published types, so a wrong field name or shape fails `npm run typecheck`.
 */
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import { formatOpenAIChat } from "../../src/model/openai/chat-format.js";
import type { OpenAIChatRequest } from "../../src/model/openai/chat-wire.js";
import { formatOpenAIResponses } from "../../src/model/openai/responses-format.js";
import type { OpenAIResponsesRequest } from "../../src/model/openai/responses-wire.js";
import { STANDARD_TOOLS, standardConversation } from "./fixtures/standard-conversation.js";

export const chatBody: ChatCompletionCreateParamsStreaming = formatOpenAIChat(
  standardConversation("openai"),
  {
    model: "gpt-4o",
    tools: STANDARD_TOOLS,
    toolChoice: { name: "get_weather" },
  },
);

export const responsesBody: ResponseCreateParamsStreaming = formatOpenAIResponses(
  standardConversation("openai"),
  {
    model: "o3",
    tools: STANDARD_TOOLS,
    toolChoice: "auto",
    reasoningEffort: "low",
  },
);

// Every shape our request types allow, not just what one conversation produces.
export function anyChatBody(body: OpenAIChatRequest): ChatCompletionCreateParamsStreaming {
  return body;
}
export function anyResponsesBody(body: OpenAIResponsesRequest): ResponseCreateParamsStreaming {
  return body;
}
