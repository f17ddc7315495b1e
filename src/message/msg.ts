import type { BlockOfType, BlockType, ContentBlock, DataBlock, TextBlock } from "./blocks.js";
import type { Cost } from "./cost.js";
import type { ErrorInfo } from "./errors.js";
import { AgentScopeError, type ErrorType } from "./errors.js";
import { newId, nowIso } from "./id.js";

export type Role = "user" | "assistant" | "system";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * Why the model stopped generating, as the provider said it (mapped to one vocabulary): `length` is a
 * truncation (max output tokens), `content_filter` a safety block (e.g. Gemini `SAFETY`), `refusal`
 * a refusal (the text block then has `refusal: true`).
 */
export type StopReason = "stop" | "tool_calls" | "length" | "content_filter" | "refusal" | "other";

/** Why a reply ended. */
export type FinishReason = "completed" | "interrupted" | "exceed_max_iters" | "error" | "stopped";

/**
 * One turn of conversation. Plain JSON data. An assistant Msg holds one whole reply (its id is the
 * reply id): thinking, text, tool calls and their results.
 */
export interface Msg<S = unknown> {
  id: string;
  name: string;
  role: Role;
  content: ContentBlock[];
  metadata: Record<string, unknown>;
  createdAt: string;
  usage?: Usage;
  /** What the reply's model calls cost, when the agent has a pricing table (see Cost). */
  cost?: Cost;
  finishedReason?: FinishReason;
  /** The stop reason of the reply's last model call (see StopReason). */
  stopReason?: StopReason;
  structuredOutput?: S;
  error?: ErrorInfo;
}

/** Block types each role may hold; enforced at construction. */
export const ROLE_BLOCKS: Record<Role, ReadonlySet<BlockType>> = {
  user: new Set<BlockType>(["text", "data"]),
  system: new Set<BlockType>(["text"]),
  assistant: new Set<BlockType>(["text", "thinking", "hint", "data", "tool_call", "tool_result"]),
};

export class RoleViolationError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    readonly role: Role,
    readonly blockType: string,
  ) {
    super(
      `a ${role} message cannot hold a "${blockType}" block (allowed: ${[...ROLE_BLOCKS[role]].join(", ")})`,
    );
    this.name = "RoleViolationError";
  }
}

export function assertRoleBlocks(role: Role, content: readonly ContentBlock[]): void {
  const allowed = ROLE_BLOCKS[role];
  for (const block of content) {
    if (!allowed.has(block.type)) throw new RoleViolationError(role, block.type);
  }
}

export type MsgContent = string | ContentBlock | ContentBlock[];

export interface MsgOptions {
  id?: string;
  name?: string;
  metadata?: Record<string, unknown>;
  createdAt?: string;
}

export function textBlock(text: string, id: string = newId("blk")): TextBlock {
  return { type: "text", id, text };
}

/** A data block from base64 data. */
export function dataBlock(data: string, mediaType: string, name?: string): DataBlock {
  const block: DataBlock = { type: "data", id: newId("blk"), source: { type: "base64", mediaType, data } };
  if (name !== undefined) block.name = name;
  return block;
}

/** A data block pointing at a URL. */
export function urlBlock(url: string, mediaType?: string): DataBlock {
  const source: DataBlock["source"] =
    mediaType === undefined ? { type: "url", url } : { type: "url", url, mediaType };
  return { type: "data", id: newId("blk"), source };
}

function toBlocks(content: MsgContent): ContentBlock[] {
  if (typeof content === "string") return [textBlock(content)];
  return Array.isArray(content) ? [...content] : [content];
}

export function createMsg(role: Role, content: MsgContent, options: MsgOptions = {}): Msg {
  const blocks = toBlocks(content);
  assertRoleBlocks(role, blocks);
  return {
    id: options.id ?? newId("msg"),
    name: options.name ?? role,
    role,
    content: blocks,
    metadata: options.metadata ?? {},
    createdAt: options.createdAt ?? nowIso(),
  };
}

export const userMsg = (content: MsgContent, options?: MsgOptions): Msg =>
  createMsg("user", content, options);
export const assistantMsg = (content: MsgContent, options?: MsgOptions): Msg =>
  createMsg("assistant", content, options);
export const systemMsg = (content: MsgContent, options?: MsgOptions): Msg =>
  createMsg("system", content, options);

/** All text blocks joined by `\n`; empty string when there are none. */
export function textOf(msg: Pick<Msg, "content">): string {
  let out: string | undefined;
  for (const block of msg.content) {
    if (block.type === "text") out = out === undefined ? block.text : `${out}\n${block.text}`;
  }
  return out ?? "";
}

export function blocksOf<T extends BlockType>(msg: Pick<Msg, "content">, type: T): BlockOfType<T>[] {
  return msg.content.filter((block): block is BlockOfType<T> => block.type === type);
}

export function firstBlock<T extends BlockType>(
  msg: Pick<Msg, "content">,
  type: T,
): BlockOfType<T> | undefined {
  return msg.content.find((block): block is BlockOfType<T> => block.type === type);
}

export function hasBlock(msg: Pick<Msg, "content">, type: BlockType): boolean {
  return msg.content.some((block) => block.type === type);
}
