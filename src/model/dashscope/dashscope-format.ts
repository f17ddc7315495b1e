import type { DataBlock, Msg } from "../../message/index.js";
import { dataUrl, mediaTypeOf } from "../media.js";
import { acceptsMedia, mainTypeOf } from "../provider-kit/media.js";
import { splitToolOutput } from "../provider-kit/tool-output.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import type { DashScopeContentItem, DashScopeMessage, DashScopeRequest } from "./dashscope-wire.js";

export interface DashScopeFormatOptions {
  model: string;
  tools?: ToolSchema[];
  /** DashScope cannot force "some" tool: "required" is sent as "auto"; a named tool is forced. */
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
  /** Qwen3 hybrid thinking switch (`enable_thinking`). */
  enableThinking?: boolean;
  thinkingBudget?: number;
  /** Multimodal message form (content lists) for the multimodal-generation endpoint; default: when any media is sent. */
  multimodal?: boolean;
  extraBody?: Record<string, unknown>;
}

/** Media the multimodal endpoint reads, as URL or data URL. */
export const DASHSCOPE_MEDIA = ["image/*", "audio/*", "video/*"];

function mediaItem(block: DataBlock): DashScopeContentItem {
  const mediaType = mediaTypeOf(block);
  if (!acceptsMedia(DASHSCOPE_MEDIA, mediaType)) {
    return { text: `[a(n) ${mainTypeOf(mediaType)} file (${mediaType}) that this model cannot read]` };
  }
  const kind = mainTypeOf(mediaType) as "image" | "audio" | "video";
  return { [kind]: dataUrl(block) } as DashScopeContentItem;
}

/** One DashScope message being built: content items, reasoning and tool calls. */
interface Draft {
  role: "system" | "user" | "assistant";
  items: DashScopeContentItem[];
  reasoning: string[];
  calls: NonNullable<DashScopeMessage["tool_calls"]>;
}

class Messages {
  readonly list: Array<Draft | DashScopeMessage> = [];
  private current: Draft | undefined;

  open(role: Draft["role"]): Draft {
    if (this.current?.role === role && (role !== "assistant" || this.current.calls.length === 0))
      return this.current;
    const draft: Draft = { role, items: [], reasoning: [], calls: [] };
    this.list.push(draft);
    this.current = draft;
    return draft;
  }

  /** Tool calls close their assistant message: later text starts a new one. */
  call(id: string, name: string, input: string): void {
    const draft = this.current?.role === "assistant" ? this.current : this.open("assistant");
    draft.calls.push({ id, type: "function", function: { name, arguments: input } });
  }

  raw(msg: DashScopeMessage): void {
    this.list.push(msg);
    this.current = undefined;
  }
}

/** Whether any message (or tool result) holds media: such requests go to the multimodal endpoint. */
export function hasMedia(messages: Msg[]): boolean {
  for (const msg of messages)
    for (const block of msg.content) {
      if (block.type === "data") return true;
      if (
        block.type === "tool_result" &&
        Array.isArray(block.output) &&
        block.output.some((b) => b.type === "data")
      )
        return true;
    }
  return false;
}

/**
 * Msg[] → DashScope native generation request (pure). Each assistant Msg becomes assistant
 * messages (text, own `reasoning_content`, tool_calls) and `tool` messages; media a tool returned
 * follows in a user message. Text-only requests use string content; media switches every message
 * to content lists for the multimodal endpoint.
 */
export function formatDashScope(messages: Msg[], options: DashScopeFormatOptions): DashScopeRequest {
  const multimodal = options.multimodal ?? hasMedia(messages);
  const out = new Messages();
  for (const msg of messages) {
    const role = msg.role;
    let promoted: DashScopeContentItem[] = [];
    for (const block of msg.content) {
      if (block.type !== "tool_result" && promoted.length > 0) {
        out.open("user").items.push(...promoted);
        promoted = [];
      }
      switch (block.type) {
        case "text":
          if (block.text !== "") out.open(role).items.push({ text: block.text });
          break;
        case "hint":
          out.open("user").items.push({ text: block.text });
          break;
        case "data":
          out.open(role).items.push(multimodal ? mediaItem(block) : { text: noteFor(block) });
          break;
        case "thinking":
          if (role === "assistant" && block.provider === "dashscope" && block.thinking !== "")
            out.open("assistant").reasoning.push(block.thinking);
          break;
        case "tool_call":
          out.call(block.id, block.name, block.input);
          break;
        case "tool_result": {
          const split = splitToolOutput(block, multimodal ? DASHSCOPE_MEDIA : []);
          out.raw({ role: "tool", content: split.text, tool_call_id: block.id, name: block.name });
          for (const item of split.promoted)
            promoted.push(item.type === "text" ? { text: item.text } : mediaItem(item));
          break;
        }
      }
    }
    if (promoted.length > 0) out.open("user").items.push(...promoted);
  }
  return buildRequest(
    out.list.map((item) => ("items" in item ? toMessage(item, multimodal) : item)),
    options,
  );
}

function noteFor(block: DataBlock): string {
  const mediaType = mediaTypeOf(block);
  const where = block.source.type === "url" ? ` at ${block.source.url}` : "";
  return `[a(n) ${mainTypeOf(mediaType)} file (${mediaType})${where}]`;
}

function toMessage(draft: Draft, multimodal: boolean): DashScopeMessage {
  const content = multimodal
    ? draft.items
    : draft.items.map((item) => ("text" in item ? item.text : "")).join("\n");
  const msg: DashScopeMessage = { role: draft.role, content };
  if (draft.reasoning.length > 0) msg.reasoning_content = draft.reasoning.join("\n");
  if (draft.calls.length > 0) msg.tool_calls = draft.calls;
  return msg;
}

function buildRequest(messages: DashScopeMessage[], options: DashScopeFormatOptions): DashScopeRequest {
  const parameters: DashScopeRequest["parameters"] = { result_format: "message", incremental_output: true };
  const tools = options.tools ?? [];
  if (tools.length > 0) {
    parameters.tools = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    const choice = options.toolChoice;
    if (choice === "none") parameters.tool_choice = "none";
    else if (typeof choice === "object")
      parameters.tool_choice = { type: "function", function: { name: choice.name } };
    else if (choice !== undefined) parameters.tool_choice = "auto";
  }
  if (options.enableThinking !== undefined) parameters.enable_thinking = options.enableThinking;
  if (options.thinkingBudget !== undefined) parameters.thinking_budget = options.thinkingBudget;
  if (options.maxTokens !== undefined) parameters.max_tokens = options.maxTokens;
  if (options.temperature !== undefined) parameters.temperature = options.temperature;
  if (options.extraBody !== undefined) Object.assign(parameters, options.extraBody);
  return { model: options.model, input: { messages }, parameters };
}
