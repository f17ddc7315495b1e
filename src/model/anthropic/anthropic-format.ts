import {
  type DataBlock,
  isProviderExecuted,
  type Msg,
  type ThinkingBlock,
  type ToolResultBlock,
} from "../../message/index.js";
import { mediaTypeOf } from "../media.js";
import { acceptsMedia, mainTypeOf } from "../provider-kit/media.js";
import { parseToolInput } from "../provider-kit/tool-input.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import { type AnthropicCacheOptions, applyCacheControl } from "./anthropic-cache.js";
import { serverToolPart } from "./anthropic-server-tools.js";
import type {
  AnthropicImageMediaType,
  AnthropicMediaPart,
  AnthropicMessage,
  AnthropicPart,
  AnthropicRequest,
  AnthropicTextPart,
  AnthropicToolChoice,
  AnthropicToolResultPart,
} from "./anthropic-wire.js";

export interface AnthropicFormatOptions {
  model: string;
  maxTokens: number;
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  temperature?: number;
  /** Extended thinking budget in tokens; `max_tokens` is raised above it when it is not already. */
  thinkingBudget?: number;
  /** Prompt-caching breakpoints; unset or false: none (AnthropicModel turns them on by default). */
  cache?: AnthropicCacheOptions | false;
  extraBody?: Record<string, unknown>;
}

/** Media Anthropic takes in user turns and inside tool results. */
export const ANTHROPIC_MEDIA = ["image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf"];

/** An image or PDF part; undefined for media Anthropic cannot read. */
export function anthropicMediaPart(block: DataBlock): AnthropicMediaPart | undefined {
  const mediaType = mediaTypeOf(block);
  if (!acceptsMedia(ANTHROPIC_MEDIA, mediaType)) return undefined;
  const type = mediaType === "application/pdf" ? "document" : "image";
  if (block.source.type === "url")
    return { type, source: { type: "url", url: block.source.url } } as AnthropicMediaPart;
  const media_type = mediaType as AnthropicImageMediaType & "application/pdf";
  return { type, source: { type: "base64", media_type, data: block.source.data } } as AnthropicMediaPart;
}

function mediaOrNote(block: DataBlock): AnthropicMediaPart | AnthropicTextPart {
  const part = anthropicMediaPart(block);
  if (part !== undefined) return part;
  const mediaType = mediaTypeOf(block);
  const where = block.source.type === "url" ? ` at ${block.source.url}` : "";
  return {
    type: "text",
    text: `[a(n) ${mainTypeOf(mediaType)} file (${mediaType})${where} that this model cannot read]`,
  };
}

/** Own thinking goes back exactly as received (signature, redacted data); unsigned thinking is dropped. */
function thinkingPart(block: ThinkingBlock): AnthropicPart | undefined {
  if (block.redactedData !== undefined) return { type: "redacted_thinking", data: block.redactedData };
  if (block.signature && (block.provider === undefined || block.provider === "anthropic"))
    return { type: "thinking", thinking: block.thinking, signature: block.signature };
  return undefined;
}

function toolResultPart(block: ToolResultBlock): AnthropicToolResultPart {
  const part: AnthropicToolResultPart = { type: "tool_result", tool_use_id: block.id, content: "" };
  if (typeof block.output === "string") part.content = block.output || "(empty tool output)";
  else {
    const content: Array<AnthropicTextPart | AnthropicMediaPart> = [];
    for (const item of block.output) {
      if (item.type === "text") {
        if (item.text !== "") content.push({ type: "text", text: item.text });
      } else content.push(mediaOrNote(item));
    }
    part.content = content.length > 0 ? content : "(empty tool output)";
  }
  if (block.state !== "success" && block.state !== "running") part.is_error = true;
  return part;
}

/** Builds the turns, merging consecutive parts of the same role into one message. */
class Turns {
  readonly messages: AnthropicMessage[] = [];

  push(role: AnthropicMessage["role"], part: AnthropicPart): void {
    const last = this.messages[this.messages.length - 1];
    if (last !== undefined && last.role === role) last.content.push(part);
    else this.messages.push({ role, content: [part] });
  }
}

function toolChoiceOf(choice: ToolChoice): AnthropicToolChoice {
  if (choice === "auto") return { type: "auto" };
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any" };
  return { type: "tool", name: choice.name };
}

/**
 * Msg[] → Anthropic Messages request (pure). System text goes to `system`; each assistant Msg is
 * split into assistant turns (thinking, text, tool_use) and user turns (tool_result, hints).
 */
export function formatAnthropic(messages: Msg[], options: AnthropicFormatOptions): AnthropicRequest {
  const system: string[] = [];
  const turns = new Turns();
  for (const msg of messages) {
    if (msg.role === "system") {
      for (const block of msg.content)
        if (block.type === "text" && block.text !== "") system.push(block.text);
      continue;
    }
    const role = msg.role;
    for (const block of msg.content) {
      if (isProviderExecuted(block)) {
        // A server tool run goes back in the assistant turn, in place, as the API sent it.
        const part = role === "assistant" ? serverToolPart(block) : undefined;
        if (part !== undefined) turns.push("assistant", part);
        continue;
      }
      switch (block.type) {
        case "text":
          // A refusal's explanation came from the API's stop_details, not from the model: not resent.
          if (block.refusal && block.provider === "anthropic") break;
          if (block.text !== "") turns.push(role, { type: "text", text: block.text });
          break;
        case "hint":
          turns.push("user", { type: "text", text: block.text });
          break;
        case "data":
          turns.push(role, role === "user" ? mediaOrNote(block) : mediaNote(block));
          break;
        case "thinking": {
          const part = thinkingPart(block);
          if (part !== undefined && role === "assistant") turns.push("assistant", part);
          break;
        }
        case "tool_call":
          turns.push("assistant", {
            type: "tool_use",
            id: block.id,
            name: block.name,
            input: parseToolInput(block.input),
          });
          break;
        case "tool_result":
          turns.push("user", toolResultPart(block));
          break;
      }
    }
  }
  return buildRequest(turns.messages, system, options);
}

/** Assistant turns cannot hold media: a short note keeps the history readable. */
function mediaNote(block: DataBlock): AnthropicTextPart {
  return { type: "text", text: `[${mainTypeOf(mediaTypeOf(block))} file produced earlier]` };
}

function buildRequest(
  messages: AnthropicMessage[],
  system: string[],
  options: AnthropicFormatOptions,
): AnthropicRequest {
  const body: AnthropicRequest = {
    model: options.model,
    max_tokens: options.maxTokens,
    messages,
    stream: true,
  };
  if (system.length > 0) body.system = system.join("\n\n");
  if (options.tools !== undefined && options.tools.length > 0) {
    // With toolChoice "none" the tools stay declared (the history uses them); the model may not call one.
    body.tools = options.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: { ...tool.parameters, type: "object" },
    }));
    if (options.toolChoice !== undefined) body.tool_choice = toolChoiceOf(options.toolChoice);
  }
  if (options.thinkingBudget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: options.thinkingBudget };
    if (body.max_tokens <= options.thinkingBudget) body.max_tokens = options.thinkingBudget + 4096;
  }
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.cache !== undefined) applyCacheControl(body, options.cache);
  if (options.extraBody !== undefined) Object.assign(body, options.extraBody);
  return body;
}
