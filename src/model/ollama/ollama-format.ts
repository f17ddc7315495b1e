import type { DataBlock, Msg } from "../../message/index.js";
import { mediaTypeOf } from "../media.js";
import { base64Of, mainTypeOf } from "../provider-kit/media.js";
import { parseToolInput } from "../provider-kit/tool-input.js";
import { splitToolOutput } from "../provider-kit/tool-output.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import type { OllamaMessage, OllamaRequest } from "./ollama-wire.js";

export interface OllamaFormatOptions {
  model: string;
  tools?: ToolSchema[];
  /** Ollama cannot force a call: "none" sends no tools, a named tool sends only that one. */
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
  /** The context window Ollama allocates (`num_ctx`). */
  numCtx?: number;
  think?: OllamaRequest["think"];
  keepAlive?: string | number;
  extraBody?: Record<string, unknown>;
}

/** Ollama reads images only, as base64. */
const OLLAMA_MEDIA = ["image/*"];

/** The base64 of an image Ollama can read, else a text note saying what was left out. */
function imageOrNote(block: DataBlock): { image?: string; note?: string } {
  const mediaType = mediaTypeOf(block);
  const data = base64Of(block.source);
  if (mediaType.startsWith("image/") && data !== undefined) return { image: data };
  const where = block.source.type === "url" ? ` at ${block.source.url}` : "";
  return { note: `[a(n) ${mainTypeOf(mediaType)} file (${mediaType})${where} that this model cannot read]` };
}

/** Accumulates one Ollama message per role run: text joined by newlines, images and calls collected. */
class Messages {
  readonly list: OllamaMessage[] = [];
  private current: OllamaMessage | undefined;

  private open(role: "user" | "assistant"): OllamaMessage {
    if (this.current?.role === role) return this.current;
    const msg: OllamaMessage = { role, content: "" };
    this.list.push(msg);
    this.current = msg;
    return msg;
  }

  text(role: "user" | "assistant", text: string): void {
    const msg = this.open(role);
    msg.content = msg.content === "" ? text : `${msg.content}\n${text}`;
  }

  data(role: "user" | "assistant", block: DataBlock): void {
    const { image, note } = imageOrNote(block);
    if (image !== undefined && role === "user") {
      const msg = this.open(role);
      msg.images ??= [];
      msg.images.push(image);
    } else this.text(role, note ?? `[${mainTypeOf(mediaTypeOf(block))} file produced earlier]`);
  }

  thinking(text: string): void {
    const msg = this.open("assistant");
    msg.thinking = msg.thinking === undefined ? text : `${msg.thinking}\n${text}`;
  }

  toolCall(id: string, name: string, input: string): void {
    const msg = this.open("assistant");
    msg.tool_calls ??= [];
    msg.tool_calls.push({ id, function: { name, arguments: parseToolInput(input) } });
  }

  raw(msg: OllamaMessage): void {
    this.list.push(msg);
    this.current = undefined;
  }
}

/**
 * Msg[] → Ollama /api/chat request (pure). Each assistant Msg becomes assistant messages (content,
 * own thinking, tool_calls) and `tool` messages (one per result, with `tool_name`); images a tool
 * returned follow in a user message.
 */
export function formatOllama(messages: Msg[], options: OllamaFormatOptions): OllamaRequest {
  const out = new Messages();
  for (const msg of messages) {
    if (msg.role === "system") {
      const text = msg.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
      if (text !== "") out.raw({ role: "system", content: text });
      continue;
    }
    const role = msg.role;
    const promoted: OllamaMessage[] = [];
    for (const block of msg.content) {
      if (block.type !== "tool_result") flush(out, promoted);
      switch (block.type) {
        case "text":
          if (block.text !== "") out.text(role, block.text);
          break;
        case "hint":
          out.text("user", block.text);
          break;
        case "data":
          out.data(role, block);
          break;
        case "thinking":
          if (role === "assistant" && block.provider === "ollama" && block.thinking !== "")
            out.thinking(block.thinking);
          break;
        case "tool_call":
          out.toolCall(block.id, block.name, block.input);
          break;
        case "tool_result": {
          const { text, promoted: media } = splitToolOutput(block, OLLAMA_MEDIA);
          out.raw({ role: "tool", content: text, tool_name: block.name, tool_call_id: block.id });
          const images = media.flatMap((item) => {
            const data = item.type === "data" ? base64Of(item.source) : undefined;
            return data === undefined ? [] : [data];
          });
          if (images.length > 0) {
            const labels = media.flatMap((item) => (item.type === "text" ? [item.text] : []));
            promoted.push({ role: "user", content: labels.join("\n"), images });
          }
          break;
        }
      }
    }
    flush(out, promoted);
  }
  return buildRequest(out.list, options);
}

function flush(out: Messages, promoted: OllamaMessage[]): void {
  for (const msg of promoted) out.raw(msg);
  promoted.length = 0;
}

function buildRequest(messages: OllamaMessage[], options: OllamaFormatOptions): OllamaRequest {
  const body: OllamaRequest = { model: options.model, messages, stream: true };
  let tools = options.tools ?? [];
  const choice = options.toolChoice;
  if (choice === "none") tools = [];
  else if (typeof choice === "object") tools = tools.filter((tool) => tool.name === choice.name);
  if (tools.length > 0)
    body.tools = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  if (options.think !== undefined) body.think = options.think;
  const modelOptions: NonNullable<OllamaRequest["options"]> = {};
  if (options.temperature !== undefined) modelOptions.temperature = options.temperature;
  if (options.maxTokens !== undefined) modelOptions.num_predict = options.maxTokens;
  if (options.numCtx !== undefined) modelOptions.num_ctx = options.numCtx;
  if (Object.keys(modelOptions).length > 0) body.options = modelOptions;
  if (options.keepAlive !== undefined) body.keep_alive = options.keepAlive;
  if (options.extraBody !== undefined) Object.assign(body, options.extraBody);
  return body;
}
