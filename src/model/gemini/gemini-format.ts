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
import { splitToolOutput } from "../provider-kit/tool-output.js";
import type { ToolChoice, ToolSchema } from "../types.js";
import { codeRunParts } from "./gemini-code-execution.js";
import { sanitizeGeminiSchema } from "./gemini-schema.js";
import type { GeminiContent, GeminiPart, GeminiRequest } from "./gemini-wire.js";

export interface GeminiFormatOptions {
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
  /** Thinking budget in tokens (0 turns thinking off on models that allow it); thoughts are included. */
  thinkingBudget?: number;
  extraBody?: Record<string, unknown>;
}

/** Media Gemini reads (inline or by file URI). */
export const GEMINI_MEDIA = ["image/*", "audio/*", "video/*", "application/pdf", "text/plain"];

/** An inlineData / fileData part; undefined for media Gemini cannot read. */
export function geminiMediaPart(block: DataBlock): GeminiPart | undefined {
  const mimeType = mediaTypeOf(block);
  if (!acceptsMedia(GEMINI_MEDIA, mimeType)) return undefined;
  if (block.source.type === "base64") return { inlineData: { mimeType, data: block.source.data } };
  return { fileData: { mimeType, fileUri: block.source.url } };
}

function mediaOrNote(block: DataBlock): GeminiPart {
  const part = geminiMediaPart(block);
  if (part !== undefined) return part;
  const mediaType = mediaTypeOf(block);
  return { text: `[a(n) ${mainTypeOf(mediaType)} file (${mediaType}) that this model cannot read]` };
}

/** Builds contents, merging consecutive parts of the same role into one content. */
class Contents {
  readonly list: GeminiContent[] = [];
  /** A thought signature waiting for the part it was attached to (see `pushThinking`). */
  private signature: string | undefined;

  push(role: GeminiContent["role"], part: GeminiPart): void {
    if (this.signature !== undefined) {
      if (role === "model") {
        part.thoughtSignature = this.signature;
        this.signature = undefined;
      } else this.flushSignature();
    }
    const last = this.list[this.list.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(part);
    else this.list.push({ role, parts: [part] });
  }

  /**
   * A signature no later part of its own model turn took (Gemini puts the last one on an empty text
   * part): sent back on an empty text part, as it came, so it never moves to another turn.
   */
  flushSignature(): void {
    const signature = this.signature;
    if (signature === undefined) return;
    this.signature = undefined;
    this.push("model", { text: "", thoughtSignature: signature });
  }

  /**
   * Gemini's own thinking goes back as it came: thought text as a `thought` part, and a signature
   * that arrived on a non-thought part (stored as an empty thinking block just before it)
   * re-attached to the next model part. Other providers' thinking is not sent.
   */
  pushThinking(block: ThinkingBlock): void {
    if (block.provider !== undefined && block.provider !== "gemini") return;
    if (block.thinking === "") {
      if (block.signature !== undefined) this.signature = block.signature;
      return;
    }
    const part: GeminiPart = { text: block.thinking, thought: true };
    if (block.signature !== undefined) part.thoughtSignature = block.signature;
    this.push("model", part);
  }

  /** A function response, with any media it holds promoted to parts after the responses. */
  pushToolResult(block: ToolResultBlock): GeminiPart[] {
    const { text, promoted } = splitToolOutput(block, GEMINI_MEDIA);
    const key = block.state === "success" || block.state === "running" ? "output" : "error";
    this.push("user", { functionResponse: { id: block.id, name: block.name, response: { [key]: text } } });
    return promoted.map((item) => (item.type === "text" ? { text: item.text } : mediaOrNote(item)));
  }
}

function flushPromoted(contents: Contents, promoted: GeminiPart[]): void {
  for (const part of promoted) contents.push("user", part);
  promoted.length = 0;
}

/**
 * Msg[] → Gemini generateContent request (pure). System text goes to `systemInstruction`; each
 * assistant Msg is split into `model` contents (thoughts, text, functionCall) and `user` contents
 * (functionResponse, promoted tool media, hints).
 */
export function formatGemini(messages: Msg[], options: GeminiFormatOptions = {}): GeminiRequest {
  const system: string[] = [];
  const contents = new Contents();
  const promoted: GeminiPart[] = [];
  for (const msg of messages) {
    if (msg.role === "system") {
      for (const block of msg.content)
        if (block.type === "text" && block.text !== "") system.push(block.text);
      continue;
    }
    const role = msg.role === "assistant" ? "model" : "user";
    for (const block of msg.content) {
      if (isProviderExecuted(block)) {
        // A code execution run goes back in the model turn, in place, as the parts Gemini sent.
        flushPromoted(contents, promoted);
        if (role === "model") for (const part of codeRunParts(block)) contents.push("model", part);
        continue;
      }
      if (block.type !== "tool_result") flushPromoted(contents, promoted);
      switch (block.type) {
        case "text":
          if (block.text !== "") contents.push(role, { text: block.text });
          break;
        case "hint":
          contents.push("user", { text: block.text });
          break;
        case "data":
          contents.push(role, mediaOrNote(block));
          break;
        case "thinking":
          if (role === "model") contents.pushThinking(block);
          break;
        case "tool_call":
          contents.push("model", {
            functionCall: { id: block.id, name: block.name, args: parseToolInput(block.input) },
          });
          break;
        case "tool_result":
          promoted.push(...contents.pushToolResult(block));
          break;
      }
    }
    contents.flushSignature();
    flushPromoted(contents, promoted);
  }
  return buildRequest(contents.list, system, options);
}

function buildRequest(
  contents: GeminiContent[],
  system: string[],
  options: GeminiFormatOptions,
): GeminiRequest {
  const body: GeminiRequest = { contents };
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  const tools = options.tools ?? [];
  if (tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: tools.map((tool) => {
          const parameters = sanitizeGeminiSchema(tool.parameters);
          return parameters === undefined
            ? { name: tool.name, description: tool.description }
            : { name: tool.name, description: tool.description, parameters };
        }),
      },
    ];
    const choice = options.toolChoice;
    if (choice === "none") body.toolConfig = { functionCallingConfig: { mode: "NONE" } };
    else if (choice === "required") body.toolConfig = { functionCallingConfig: { mode: "ANY" } };
    else if (typeof choice === "object")
      body.toolConfig = { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
  }
  const config: NonNullable<GeminiRequest["generationConfig"]> = {};
  if (options.maxTokens !== undefined) config.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) config.temperature = options.temperature;
  if (options.thinkingBudget !== undefined)
    config.thinkingConfig = {
      thinkingBudget: options.thinkingBudget,
      includeThoughts: options.thinkingBudget !== 0,
    };
  if (Object.keys(config).length > 0) body.generationConfig = config;
  if (options.extraBody !== undefined) Object.assign(body, options.extraBody);
  return body;
}
