import type { ContentBlock, Msg } from "../message/index.js";
import type { ToolSchema } from "./types.js";

/** Rough tokens for a string: about four characters a token, CJK closer to one a character. */
export function estimateTextTokens(text: string): number {
  let wide = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x2e80) wide++;
  return Math.ceil((text.length - wide) / 4 + wide);
}

const IMAGE_TOKENS = 800;

function blockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
    case "hint":
      return estimateTextTokens(block.text);
    case "thinking":
      return estimateTextTokens(block.thinking);
    case "data":
      return IMAGE_TOKENS;
    case "tool_call":
      return estimateTextTokens(block.name) + estimateTextTokens(block.input) + 4;
    case "tool_result":
      return typeof block.output === "string"
        ? estimateTextTokens(block.output) + 4
        : block.output.reduce((sum, part) => sum + blockTokens(part), 4);
  }
}

/** The estimator every model uses unless it has a real tokenizer. */
export function estimateTokens(messages: Msg[], tools: ToolSchema[] = []): number {
  let total = 0;
  for (const msg of messages) {
    total += 4;
    for (const block of msg.content) total += blockTokens(block);
  }
  for (const tool of tools) total += estimateTextTokens(JSON.stringify(tool));
  return total;
}
