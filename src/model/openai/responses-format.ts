import type { DataBlock, Msg, TextBlock } from "../../message/index.js";
import { attachmentPlaceholder, dataUrl, decodeText, mediaKind, mediaTypeOf } from "../media.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import { hostedItem } from "./responses-hosted-tools.js";
import type {
  OpenAIResponsesContentPart,
  OpenAIResponsesInputItem,
  OpenAIResponsesRequest,
  OpenAIResponsesToolChoice,
} from "./responses-wire.js";

export interface OpenAIResponsesFormatOptions {
  model: string;
  /** Provider id: reasoning items stamped with it are sent back (default "openai"). */
  provider?: string;
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
  /** Reasoning summaries to stream (default "auto" when reasoningEffort is set). */
  reasoningSummary?: "auto" | "concise" | "detailed";
  /** false: nothing is stored server-side; reasoning then round-trips through `encrypted_content`. */
  store?: boolean;
  extraBody?: Record<string, unknown>;
}

/**
 * Msg[] → a streaming Responses body (pure; the history normalised already, see normalizeMessages). Each assistant reply becomes
 * reasoning items (own ones only, with their ids and encrypted content), messages, function_call and
 * function_call_output items in order. Tool outputs keep their images and files (the API takes them).
 */
export function formatOpenAIResponses(
  messages: readonly Msg[],
  options: OpenAIResponsesFormatOptions,
): OpenAIResponsesRequest {
  const provider = options.provider ?? "openai";
  const input: OpenAIResponsesInputItem[] = [];
  for (const msg of messages) {
    if (msg.role !== "assistant") {
      input.push({ role: msg.role, content: userContent(msg.content) });
      continue;
    }
    for (const block of msg.content) {
      switch (block.type) {
        case "text":
          input.push(assistantText(block, provider));
          break;
        case "thinking":
          if (block.itemId !== undefined && block.provider === provider) {
            const item: Extract<OpenAIResponsesInputItem, { type: "reasoning" }> = {
              type: "reasoning",
              id: block.itemId,
              summary: block.thinking === "" ? [] : [{ type: "summary_text", text: block.thinking }],
            };
            if (block.signature !== undefined) item.encrypted_content = block.signature;
            input.push(item);
          }
          break;
        case "tool_call":
          if (block.executedBy === "provider") {
            // A hosted tool run goes back in place as the item the API sent.
            const item = hostedItem(block, msg, provider);
            if (item !== undefined) input.push(item);
          } else
            input.push({
              type: "function_call",
              call_id: block.id,
              name: block.name,
              arguments: block.input,
            });
          break;
        case "tool_result":
          if (block.executedBy === "provider") break; // its call's item holds the result
          input.push({
            type: "function_call_output",
            call_id: block.id,
            output: typeof block.output === "string" ? block.output : toolOutputParts(block.output),
          });
          break;
        case "data":
          input.push({ role: "assistant", content: attachmentPlaceholder(block) });
          break;
      }
    }
  }
  const body: OpenAIResponsesRequest = { model: options.model, input, stream: true };
  if (options.tools && options.tools.length > 0) {
    body.tools = options.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      strict: false,
    }));
  }
  if (options.toolChoice !== undefined) body.tool_choice = responsesToolChoice(options.toolChoice);
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.reasoningEffort !== undefined) {
    body.reasoning = { effort: options.reasoningEffort, summary: options.reasoningSummary ?? "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  if (options.store !== undefined) body.store = options.store;
  return options.extraBody ? { ...body, ...options.extraBody } : body;
}

type AssistantItem = Extract<OpenAIResponsesInputItem, { role: "assistant" }>;
const ITEM_STATUS = new Set(["in_progress", "completed", "incomplete"]);
const PHASES = new Set(["commentary", "final_answer"]);

/** Assistant text: this provider's message items go back with their id, status and phase. */
function assistantText(block: TextBlock, provider: string): AssistantItem {
  if (block.itemId === undefined || block.provider !== provider) {
    return { role: "assistant", content: block.text };
  }
  const item: Extract<AssistantItem, { type: "message" }> = {
    type: "message",
    role: "assistant",
    id: block.itemId,
    status: ITEM_STATUS.has(block.itemStatus ?? "")
      ? (block.itemStatus as "in_progress" | "completed" | "incomplete")
      : "completed",
    content: [
      block.refusal
        ? { type: "refusal", refusal: block.text }
        : { type: "output_text", text: block.text, annotations: [] },
    ],
  };
  if (PHASES.has(block.phase ?? "")) item.phase = block.phase as "commentary" | "final_answer";
  return item;
}

export function responsesToolChoice(choice: ToolChoice): OpenAIResponsesToolChoice {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}

function userContent(blocks: Msg["content"]): string | OpenAIResponsesContentPart[] {
  if (blocks.length === 1 && blocks[0]?.type === "text") return blocks[0].text;
  return toolOutputParts(blocks);
}

function toolOutputParts(blocks: readonly Msg["content"][number][]): OpenAIResponsesContentPart[] {
  const parts: OpenAIResponsesContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (block.type === "data") parts.push(responsesMediaPart(block));
  }
  return parts;
}

/** A data block as a Responses input part (text when the API cannot take it). */
export function responsesMediaPart(block: DataBlock): OpenAIResponsesContentPart {
  const mediaType = mediaTypeOf(block);
  const kind = mediaKind(mediaType);
  if (kind === "image") return { type: "input_image", image_url: dataUrl(block), detail: "auto" };
  if (kind === "pdf") {
    return block.source.type === "base64"
      ? { type: "input_file", file_data: dataUrl(block), filename: block.name ?? "file.pdf" }
      : { type: "input_file", file_url: block.source.url };
  }
  if (kind === "text" && block.source.type === "base64")
    return { type: "input_text", text: decodeText(block) ?? "" };
  return { type: "input_text", text: attachmentPlaceholder(block) };
}
