/**
 * Compile-time check (tsc, not vitest): the Anthropic and Gemini formatters' bodies are valid for
 * the official SDKs' published request types, so a wrong field name or shape fails `npm run typecheck`.
 */
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type {
  Content,
  FunctionCallingConfigMode,
  FunctionDeclaration,
  GenerationConfig,
  Schema,
  Type,
} from "@google/genai";
import { formatAnthropic } from "../../src/model/anthropic/anthropic-format.js";
import type { AnthropicRequest } from "../../src/model/anthropic/anthropic-wire.js";
import { formatGemini } from "../../src/model/gemini/gemini-format.js";
import type { GeminiSchema } from "../../src/model/gemini/gemini-schema.js";
import type { GeminiRequest } from "../../src/model/gemini/gemini-wire.js";
import { STANDARD_TOOLS, standardConversation } from "./fixtures/standard-conversation.js";

export const anthropicBody: MessageCreateParamsStreaming = formatAnthropic(
  standardConversation("anthropic"),
  {
    model: "claude-sonnet-4-5",
    maxTokens: 1024,
    tools: STANDARD_TOOLS,
    toolChoice: { name: "get_weather" },
    thinkingBudget: 1024,
  },
);

// Every shape our request type allows, not just what one conversation produces.
export function anyAnthropicBody(body: AnthropicRequest): MessageCreateParamsStreaming {
  return body;
}

/** The SDK's enums as the string values that go on the wire (our bodies are plain JSON). */
type WireSchema = Omit<Schema, "type" | "anyOf" | "items" | "properties"> & {
  type?: `${Type}`;
  anyOf?: WireSchema[];
  items?: WireSchema;
  properties?: Record<string, WireSchema>;
};

export function geminiContents(body: GeminiRequest): Content[] {
  return body.contents;
}
export function geminiSystem(body: GeminiRequest): Content | undefined {
  return body.systemInstruction;
}
export function geminiDeclarations(body: GeminiRequest): Array<Omit<FunctionDeclaration, "parameters">> {
  return body.tools?.[0]?.functionDeclarations ?? [];
}
export function geminiSchema(schema: GeminiSchema): WireSchema {
  return schema;
}
export function geminiMode(body: GeminiRequest): `${FunctionCallingConfigMode}` | undefined {
  return body.toolConfig?.functionCallingConfig.mode;
}
export function geminiGeneration(body: GeminiRequest): GenerationConfig | undefined {
  return body.generationConfig;
}
export const geminiBody = formatGemini(standardConversation("gemini"), {
  tools: STANDARD_TOOLS,
  toolChoice: "auto",
});
