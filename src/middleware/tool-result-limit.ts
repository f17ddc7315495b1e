import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Middleware, ToolCallRequest } from "../agent/index.js";
import { isAsyncIterable } from "../agent/tool-output.js";
import { type DataBlock, type TextBlock, textBlock } from "../message/index.js";
import { estimateTextTokens } from "../model/core.js";
import { baseDirectory } from "../permission/index.js";
import type { ToolChunk } from "../tool/index.js";

/** How much of a tool's output was kept and cut (estimated tokens). */
export interface TruncationInfo {
  maxTokens: number;
  totalTokens: number;
  keptTokens: number;
  cutTokens: number;
  /** Where the whole output was written, when offloading. */
  path?: string;
}

/**
 * Large output offload: the whole text of a cut result goes to a file and the marker tells the model
 * where, so it can read the rest with Read (offset/limit) instead of the context filling up.
 */
export interface ToolOutputOffload {
  /**
   * The directory of the files (created when missing): absolute, or a function of the call. Default
   * `.agentscope/tool-output` in the call's first working directory (a workspace's root), where Read
   * is allowed without asking. Files are named after the tool call id.
   */
  directory?: string | ((request: ToolCallRequest) => string);
}

export interface ToolResultLimitOptions {
  /** Text tokens (estimated) a tool result may keep; data blocks (images, files) pass unchanged. */
  maxTokens: number;
  /**
   * The note appended where the output was cut. A string may use `{cut}`, `{total}`, `{kept}` and
   * `{max}` (and `{path}` when offloading); default: `\n[truncated: {cut} of {total} tokens cut, limit {max}]`,
   * or with `offload` a note naming the file.
   */
  marker?: string | ((info: TruncationInfo) => string);
  /** Write the whole output of a cut result to a file and name it in the marker. */
  offload?: ToolOutputOffload;
  /** Middleware name (default `tool-result-limit`). */
  name?: string;
}

const DEFAULT_MARKER = "\n[truncated: {cut} of {total} tokens cut, limit {max}]";
const OFFLOAD_MARKER =
  "\n[output cut: {cut} of {total} tokens not shown; the whole output is in {path}: " +
  "read it with the Read tool (offset and limit pick lines)]";

/**
 * Truncates each tool result whose text is over `maxTokens` (estimated with `estimateTextTokens`) and
 * appends a marker saying how much was cut. Works on plain values, blocks and streamed output.
 */
export function toolResultLimitMiddleware(options: ToolResultLimitOptions): Middleware {
  const { maxTokens } = options;
  if (!(Number.isInteger(maxTokens) && maxTokens >= 0)) {
    throw new RangeError(
      `toolResultLimitMiddleware: maxTokens must be an integer ≥ 0, got ${String(maxTokens)}`,
    );
  }
  const { offload } = options;
  const marker = options.marker ?? (offload ? OFFLOAD_MARKER : DEFAULT_MARKER);
  const render = (info: TruncationInfo): string =>
    typeof marker === "function"
      ? marker(info)
      : marker
          .replaceAll("{cut}", String(info.cutTokens))
          .replaceAll("{total}", String(info.totalTokens))
          .replaceAll("{kept}", String(info.keptTokens))
          .replaceAll("{max}", String(info.maxTokens))
          .replaceAll("{path}", info.path ?? "");

  return {
    name: options.name ?? "tool-result-limit",
    async onToolCall(request, _ctx, next) {
      const outcome = await next(request);
      const note: Note = offload
        ? async (info, whole) => render({ ...info, path: await writeOffload(offload, request, whole()) })
        : async (info) => render(info);
      if (isAsyncIterable(outcome)) return limitStream(outcome, maxTokens, note, offload !== undefined);
      return limitValue(outcome, maxTokens, note);
    },
  };
}

/** Writes the whole output to `<directory>/<tool call id>.txt` and returns that path. */
async function writeOffload(
  offload: ToolOutputOffload,
  request: ToolCallRequest,
  text: string,
): Promise<string> {
  const { directory } = offload;
  const dir =
    typeof directory === "function"
      ? directory(request)
      : (directory ?? join(baseDirectory(request.ctx.permission), ".agentscope", "tool-output"));
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${request.call.id.replace(/[^\w.-]/g, "_")}.txt`);
  await writeFile(path, text, "utf8");
  return path;
}

/** The marker for a cut result; `whole` gives the complete text (for offloading). */
type Note = (info: TruncationInfo, whole: () => string) => Promise<string>;
type Part = TextBlock | DataBlock;

/** Keeps text while the budget lasts: `take` returns the part of a text that fits. */
class TextBudget {
  private used = 0;
  total = 0;
  cutAny = false;

  constructor(private readonly max: number) {}

  take(text: string): string {
    const tokens = estimateTextTokens(text);
    this.total += tokens;
    if (this.cutAny) return "";
    if (this.used + tokens <= this.max) {
      this.used += tokens;
      return text;
    }
    this.cutAny = true;
    const kept = longestPrefixWithin(text, this.max - this.used);
    this.used += estimateTextTokens(kept);
    return kept;
  }

  info(): TruncationInfo {
    return {
      maxTokens: this.max,
      totalTokens: this.total,
      keptTokens: this.used,
      cutTokens: this.total - this.used,
    };
  }
}

/** The longest prefix of `text` estimated at no more than `tokens`, never splitting a surrogate pair. */
function longestPrefixWithin(text: string, tokens: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (estimateTextTokens(text.slice(0, mid)) <= tokens) low = mid;
    else high = mid - 1;
  }
  const code = text.charCodeAt(low - 1);
  if (low > 0 && code >= 0xd800 && code <= 0xdbff) low -= 1;
  return text.slice(0, low);
}

function isPart(value: unknown): value is Part {
  if (typeof value !== "object" || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return type === "text" || type === "data";
}

/** A finished value: strings and text blocks are cut; any other value is cut as its JSON text. */
async function limitValue(value: unknown, max: number, note: Note): Promise<unknown> {
  if (value === undefined || value === null) return value;
  const parts: Part[] | undefined =
    typeof value === "string"
      ? [textBlock(value)]
      : isPart(value)
        ? [value]
        : Array.isArray(value) && value.length > 0 && value.every(isPart)
          ? value
          : undefined;
  if (!parts) {
    const json = JSON.stringify(value);
    if (json === undefined || estimateTextTokens(json) <= max) return value;
    return limitValue(json, max, note);
  }
  const budget = new TextBudget(max);
  const kept: Part[] = [];
  for (const part of parts) {
    if (part.type === "data") {
      kept.push(part);
      continue;
    }
    const text = budget.take(part.text);
    if (text !== "") kept.push(text === part.text ? part : { ...part, text });
  }
  if (!budget.cutAny) return value;
  const whole = () => parts.map((part) => (part.type === "text" ? part.text : "")).join("");
  const marker = await note(budget.info(), whole);
  if (typeof value === "string") return `${(kept[0] as TextBlock | undefined)?.text ?? ""}${marker}`;
  return [...kept, textBlock(marker)];
}

/** Streamed output: chunks pass until the budget is spent; the rest is read and counted, then the marker. */
async function* limitStream(
  chunks: AsyncIterable<ToolChunk>,
  max: number,
  note: Note,
  keepWhole: boolean,
): AsyncGenerator<ToolChunk> {
  const budget = new TextBudget(max);
  const texts: string[] = [];
  for await (const chunk of chunks) {
    if (typeof chunk !== "string" && chunk.type === "data") {
      yield chunk;
      continue;
    }
    const text = typeof chunk === "string" ? chunk : chunk.text;
    if (keepWhole) texts.push(text);
    const kept = budget.take(text);
    if (kept === text) yield chunk;
    else if (kept !== "") yield typeof chunk === "string" ? kept : { ...chunk, text: kept };
  }
  if (budget.cutAny) yield await note(budget.info(), () => texts.join(""));
}
