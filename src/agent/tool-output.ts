import type { DataBlock, TextBlock } from "../message/index.js";
import type { ToolChunk } from "../tool/index.js";

/** A piece of tool output, ready to become a TOOL_RESULT_TEXT_DELTA or DATA_DELTA event. */
export type OutputPart = { kind: "text"; text: string } | { kind: "data"; block: DataBlock };

function isBlock(value: unknown): value is TextBlock | DataBlock {
  if (typeof value !== "object" || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === "text" || type === "data";
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<ToolChunk> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** One streamed chunk as an output part. */
export function chunkToPart(chunk: ToolChunk): OutputPart {
  if (typeof chunk === "string") return { kind: "text", text: chunk };
  return chunk.type === "text" ? { kind: "text", text: chunk.text } : { kind: "data", block: chunk };
}

/** A finished tool value as output parts: strings and blocks as they are, anything else as JSON. */
export function valueToParts(value: unknown): OutputPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value === "" ? [] : [{ kind: "text", text: value }];
  if (isBlock(value)) return [chunkToPart(value)];
  if (Array.isArray(value) && value.length > 0 && value.every(isBlock)) return value.map(chunkToPart);
  return [{ kind: "text", text: JSON.stringify(value) }];
}
