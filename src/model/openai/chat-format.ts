import type { DataBlock, Msg, TextBlock, ToolResultBlock } from "../../message/index.js";
import { attachmentPlaceholder, dataUrl, decodeText, mediaKind, mediaTypeOf } from "../media.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import type {
  OpenAIChatContentPart,
  OpenAIChatMessage,
  OpenAIChatRequest,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
} from "./chat-wire.js";

export interface OpenAIChatFormatOptions {
  model: string;
  /** Provider id: thinking stamped with it is this provider's own (default "openai"). */
  provider?: string;
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  /** Default "max_completion_tokens"; most compatible servers want "max_tokens". */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  temperature?: number;
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
  /** Send this provider's own thinking back as `reasoning_content` (DeepSeek, DashScope, Moonshot). */
  reasoningRoundTrip?: boolean;
  /** Merged into the body last. */
  extraBody?: Record<string, unknown>;
}

/**
 * Msg[] → a streaming Chat Completions body (pure; the history normalised already, see normalizeMessages). Splits each
 * assistant reply into assistant (text + tool_calls) and `tool` messages in order; media returned by
 * tools goes into a user message after the tool messages, since tool messages take text only.
 */
export function formatOpenAIChat(
  messages: readonly Msg[],
  options: OpenAIChatFormatOptions,
): OpenAIChatRequest {
  const provider = options.provider ?? "openai";
  const out: OpenAIChatMessage[] = [];
  for (const msg of messages) {
    if (msg.role === "system") out.push({ role: "system", content: joinText(msg.content) });
    else if (msg.role === "user") out.push({ role: "user", content: userContent(msg.content) });
    else formatAssistant(msg, options.reasoningRoundTrip === true, provider, out);
  }
  const body: OpenAIChatRequest = {
    model: options.model,
    messages: out,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (options.tools && options.tools.length > 0) {
    body.tools = options.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (options.toolChoice !== undefined) body.tool_choice = chatToolChoice(options.toolChoice);
  if (options.maxTokens !== undefined)
    body[options.maxTokensField ?? "max_completion_tokens"] = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort;
  return options.extraBody ? { ...body, ...options.extraBody } : body;
}

export function chatToolChoice(choice: ToolChoice): OpenAIChatToolChoice {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

function joinText(blocks: Msg["content"]): string {
  let text = "";
  for (const block of blocks)
    if (block.type === "text") text = text === "" ? block.text : `${text}\n${block.text}`;
  return text;
}

function userContent(blocks: Msg["content"]): string | OpenAIChatContentPart[] {
  if (blocks.length === 1 && blocks[0]?.type === "text") return blocks[0].text;
  const parts: OpenAIChatContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "data") parts.push(mediaPart(block));
  }
  return parts;
}

/** A data block as a Chat Completions content part (text when the API cannot take it). */
export function mediaPart(block: DataBlock): OpenAIChatContentPart {
  const mediaType = mediaTypeOf(block);
  const kind = mediaKind(mediaType);
  if (kind === "image") return { type: "image_url", image_url: { url: dataUrl(block) } };
  if (block.source.type === "base64") {
    if (kind === "audio" && /wav|mp3|mpeg/.test(mediaType)) {
      const format = mediaType.includes("wav") ? "wav" : "mp3";
      return { type: "input_audio", input_audio: { data: block.source.data, format } };
    }
    if (kind === "pdf")
      return { type: "file", file: { file_data: dataUrl(block), filename: block.name ?? "file.pdf" } };
    if (kind === "text") return { type: "text", text: decodeText(block) ?? "" };
  }
  return { type: "text", text: attachmentPlaceholder(block) };
}

function toolOutputText(result: ToolResultBlock, media: DataBlock[]): string {
  if (typeof result.output === "string") return result.output;
  const texts: string[] = [];
  for (const part of result.output) {
    if (part.type === "text") texts.push(part.text);
    else {
      media.push(part);
      texts.push(
        `[${mediaTypeOf(part)} ${media.length} of the tool's output follows in the next user message]`,
      );
    }
  }
  return texts.join("\n");
}

/** Splits one assistant reply into assistant / tool / user messages, keeping the order of its blocks. */
function formatAssistant(msg: Msg, roundTrip: boolean, provider: string, out: OpenAIChatMessage[]): void {
  let texts: TextBlock[] = [];
  let reasoning = "";
  let calls: OpenAIChatToolCall[] = [];
  let media: Array<{ result: ToolResultBlock; blocks: DataBlock[] }> = [];
  const flushAssistant = () => {
    if (texts.length === 0 && calls.length === 0) return;
    const answers = texts.filter((t) => t.refusal !== true);
    const refusals = texts.filter((t) => t.refusal === true);
    const turn: Extract<OpenAIChatMessage, { role: "assistant" }> = {
      role: "assistant",
      content: answers.length > 0 ? answers.map((t) => t.text).join("\n") : null,
    };
    // A refusal goes back as one, so the model sees what it declined.
    if (refusals.length > 0) turn.refusal = refusals.map((t) => t.text).join("\n");
    if (calls.length > 0) turn.tool_calls = calls;
    if (reasoning !== "") turn.reasoning_content = reasoning;
    out.push(turn);
    texts = [];
    calls = [];
    reasoning = "";
  };
  const flushMedia = () => {
    if (media.length === 0) return;
    const parts: OpenAIChatContentPart[] = [];
    for (const { result, blocks } of media) {
      parts.push({ type: "text", text: `Output of tool ${result.name} (call ${result.id}):` });
      for (const block of blocks) parts.push(mediaPart(block));
    }
    out.push({ role: "user", content: parts });
    media = [];
  };
  for (const block of msg.content) {
    switch (block.type) {
      case "text":
        flushMedia();
        texts.push(block);
        break;
      case "thinking":
        flushMedia();
        if (roundTrip && block.provider === provider) reasoning += block.thinking;
        break;
      case "tool_call":
        flushMedia();
        calls.push({
          id: block.id,
          type: "function",
          function: { name: block.name, arguments: block.input },
        });
        break;
      case "tool_result": {
        flushAssistant();
        const blocks: DataBlock[] = [];
        out.push({ role: "tool", tool_call_id: block.id, content: toolOutputText(block, blocks) });
        if (blocks.length > 0) media.push({ result: block, blocks });
        break;
      }
      case "data":
        flushMedia();
        texts.push({ type: "text", id: block.id, text: attachmentPlaceholder(block) });
        break;
    }
  }
  flushAssistant();
  flushMedia();
}
