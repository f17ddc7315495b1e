import type { AnthropicCacheControl, AnthropicPart, AnthropicRequest } from "./anthropic-wire.js";

/**
 * Where Anthropic prompt-caching breakpoints (`cache_control`) go. Each one caches the prompt up to
 * and including the part it is on; reads cost a tenth of the input price, writes a quarter more.
 * Prompts shorter than the model's minimum (1,024 or 2,048 tokens) are simply not cached.
 */
export interface AnthropicCacheOptions {
  /** The system prompt (default true). */
  system?: boolean;
  /** The last tool definition, so all tools are cached (default true). */
  tools?: boolean;
  /** The last cacheable part of the conversation, so the next turn reads the whole history (default true). */
  tail?: boolean;
  /** Cache lifetime: "5m" (default) or "1h". */
  ttl?: "5m" | "1h";
}

/** Parts that may not carry `cache_control` (thinking is cached as part of its turn). */
const UNMARKABLE = new Set<AnthropicPart["type"]>(["thinking", "redacted_thinking"]);

/** Writes the breakpoints `options` asks for into `body` (false: none). */
export function applyCacheControl(body: AnthropicRequest, options: AnthropicCacheOptions | false = {}): void {
  if (options === false) return;
  const mark: AnthropicCacheControl =
    options.ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
  if (options.system !== false && body.system !== undefined && body.system !== "") {
    const parts =
      typeof body.system === "string" ? [{ type: "text" as const, text: body.system }] : body.system;
    const last = parts.at(-1);
    if (last !== undefined) last.cache_control = mark;
    body.system = parts;
  }
  const lastTool = body.tools?.at(-1);
  if (options.tools !== false && lastTool !== undefined) lastTool.cache_control = mark;
  if (options.tail !== false) {
    const content = body.messages.at(-1)?.content ?? [];
    for (let i = content.length - 1; i >= 0; i--) {
      const part = content[i]!;
      if (UNMARKABLE.has(part.type)) continue;
      (part as { cache_control?: AnthropicCacheControl }).cache_control = mark;
      break;
    }
  }
}
