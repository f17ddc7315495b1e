import type { ContentBlock, Msg } from "../message/index.js";
import type { ChatFinal } from "../model/core.js";

/**
 * OpenTelemetry GenAI semantic-convention attribute names (the incubating set, written out here so
 * no conventions package is needed at run time).
 */
export const GenAI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestTemperature: "gen_ai.request.temperature",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolDescription: "gen_ai.tool.description",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  toolDefinitions: "gen_ai.tool.definitions",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  errorType: "error.type",
} as const;

/** Attributes of our own, for what the conventions do not name. */
export const AgentScopeAttr = {
  replyId: "agentscope.reply.id",
  finishedReason: "agentscope.reply.finished_reason",
  pausedFor: "agentscope.reply.paused_for",
  interrupted: "agentscope.interrupted",
  /** The reply's cost in US dollars (absent: some call had no price; see `agentscope.cost.unpriced`). */
  costUsd: "agentscope.cost.usd",
  pricedCostUsd: "agentscope.cost.priced_usd",
  unpriced: "agentscope.cost.unpriced",
} as const;

/** Our provider family names mapped to the conventions' well-known `gen_ai.provider.name` values. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { gemini: "gcp.gemini" };

export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** One message part in the conventions' JSON shape for `gen_ai.input.messages` / `output.messages`. */
type MessagePart = Record<string, unknown> & { type: string };

function partOf(block: ContentBlock): MessagePart {
  switch (block.type) {
    case "text":
    case "hint":
      return { type: "text", content: block.text };
    case "thinking":
      return { type: "reasoning", content: block.thinking };
    case "data":
      return block.source.type === "url"
        ? { type: "uri", uri: block.source.url, mime_type: block.source.mediaType }
        : { type: "blob", mime_type: block.source.mediaType }; // the bytes stay out of spans
    case "tool_call":
      return { type: "tool_call", id: block.id, name: block.name, arguments: parseJsonOr(block.input) };
    case "tool_result":
      return {
        type: "tool_call_response",
        id: block.id,
        response: typeof block.output === "string" ? block.output : block.output.map((part) => partOf(part)),
      };
  }
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The conversation sent to a model: system text apart, the rest as `gen_ai.input.messages` JSON. */
export function inputMessagesJson(messages: Msg[]): { system?: string; input: string } {
  const system: MessagePart[] = [];
  const input: Array<{ role: string; parts: MessagePart[] }> = [];
  for (const msg of messages) {
    const parts = msg.content.map(partOf);
    if (msg.role === "system") system.push(...parts);
    else if (parts.length > 0) input.push({ role: msg.role, parts }); // empty ones never reach the provider
  }
  const out: { system?: string; input: string } = { input: JSON.stringify(input) };
  if (system.length > 0) out.system = JSON.stringify(system);
  return out;
}

/** A model's answer as `gen_ai.output.messages` JSON. */
export function outputMessagesJson(final: ChatFinal): string {
  return JSON.stringify([
    { role: "assistant", parts: final.content.map(partOf), finish_reason: final.stopReason },
  ]);
}
