import { type ContentBlock, type Msg, systemMsg, textOf, type Usage, userMsg } from "../message/index.js";
import type { ChatFinal, ChatModel, ToolSchema } from "../model/core.js";
import type { TokenCounter } from "./token-count.js";

/** When and how the context is compressed. */
export interface ContextOptions {
  /** Compress when the next model input would pass this share of the context window (default 0.8). */
  triggerRatio?: number;
  /** Share of the window kept verbatim as the newest context when compressing (default 0.1). */
  reserveRatio?: number;
  /** Send at most this many images (newest first); older ones become a short text marker. */
  maxImages?: number;
  /** Summarise with this model instead of the agent's own. */
  summaryModel?: ChatModel;
  /**
   * What counts the input against the trigger (see TokenCounter): default `"provider"` when the
   * model has `countInputTokens` (asked only near the trigger; the estimate if it fails), else
   * `"estimate"`.
   */
  tokenCounter?: TokenCounter;
}

export const SUMMARY_INSTRUCTIONS = `You compress the earlier part of a conversation between a user and an AI agent so the agent can continue without it.
Write a summary with exactly these sections:
## Task overview
## Current state
## Discoveries
## Next steps
## Context to preserve
Keep names, paths, numbers, decisions and open questions exactly. Be concise.`;

export interface CompressionPlan {
  older: Msg[];
  newer: Msg[];
}

/**
 * Splits the context at a message boundary: the newest messages that fit `keepTokens` stay verbatim
 * (the last message always stays); the rest is to be summarised. A tool call and its result live in
 * the same reply Msg, so they are never separated.
 */
export function planCompression(
  context: Msg[],
  keepTokens: number,
  count: (msgs: Msg[]) => number,
): CompressionPlan {
  let kept = 0;
  let split = context.length;
  for (let i = context.length - 1; i >= 0; i--) {
    const cost = count([context[i]!]);
    if (split < context.length && kept + cost > keepTokens) break;
    kept += cost;
    split = i;
  }
  return { older: context.slice(0, split), newer: context.slice(split) };
}

/** The older messages as a plain transcript for the summariser. */
export function transcriptOf(messages: Msg[], previousSummary?: string): string {
  const lines: string[] = [];
  if (previousSummary) lines.push(`[Earlier summary]\n${previousSummary}`);
  for (const msg of messages) {
    for (const block of msg.content) {
      const line = describeBlock(block);
      if (line)
        lines.push(`${msg.role}${msg.name && msg.name !== msg.role ? ` (${msg.name})` : ""}: ${line}`);
    }
  }
  return lines.join("\n");
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
    case "hint":
      return block.text;
    case "thinking":
      return "";
    case "data":
      return `[${block.source.mediaType ?? "data"}${block.name ? ` ${block.name}` : ""}]`;
    case "tool_call":
      return `called ${block.name}(${block.input})`;
    case "tool_result": {
      const output = typeof block.output === "string" ? block.output : textOf({ content: block.output });
      return `${block.name} → ${block.state}: ${output.length > 2000 ? `${output.slice(0, 2000)}…` : output}`;
    }
  }
}

/** Asks the model for the summary; returns its text and usage. */
export async function summarise(
  model: ChatModel,
  older: Msg[],
  previousSummary: string | undefined,
  signal?: AbortSignal,
): Promise<{ summary: string; usage: Usage }> {
  const input = [systemMsg(SUMMARY_INSTRUCTIONS), userMsg(transcriptOf(older, previousSummary))];
  let final: ChatFinal | undefined;
  for await (const chunk of model.stream(input, signal ? { signal } : {})) {
    if (chunk.type === "final") final = chunk;
  }
  const summary = final ? textOf({ content: final.content.filter((b) => b.type === "text") }) : "";
  if (!summary.trim()) throw new Error("the summary came back empty");
  return { summary: summary.trim(), usage: final!.usage };
}

/** Whether the next input passes the trigger. */
export function overTrigger(
  model: ChatModel,
  messages: Msg[],
  tools: ToolSchema[],
  triggerRatio: number,
): boolean {
  return model.countTokens(messages, tools) > model.contextSize * triggerRatio;
}

/**
 * A copy of `messages` in which only the newest `max` images remain; older ones become a text
 * marker. Messages without images are shared, not copied.
 */
export function limitImages(messages: Msg[], max: number): Msg[] {
  let seen = 0;
  const out = messages.slice();
  for (let m = out.length - 1; m >= 0; m--) {
    const msg = out[m]!;
    let changed = false;
    const content = msg.content.map((block, _index) => {
      if (block.type === "data" && isImage(block.source.mediaType)) {
        seen += 1;
        if (seen > max) {
          changed = true;
          return { type: "text", id: block.id, text: "[image omitted to save context]" } as ContentBlock;
        }
      }
      return block;
    });
    if (changed) out[m] = { ...msg, content };
  }
  return out;
}

function isImage(mediaType: string | undefined): boolean {
  return mediaType?.startsWith("image/") ?? false;
}
