import {
  type Citation,
  newId,
  type TextBlock,
  type ThinkingBlock,
  type ToolCallBlock,
  type ToolResultBlock,
  type Usage,
} from "../../message/index.js";
import { ContentAssembler, stopReasonWithTools } from "../provider-kit/content-assembler.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";
import { addCodeResult, codeCall, type WireCodePart } from "./gemini-code-execution.js";

const PROVIDER = "gemini";

/** Gemini `finishReason` → ModelStopReason (`stop` becomes `tool_calls` when calls were made). */
export function geminiStopReason(reason: unknown): ModelStopReason {
  switch (reason) {
    case "STOP":
      return "stop";
    case "MAX_TOKENS":
      return "length";
    case "FUNCTION_CALL":
      return "tool_calls";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "content_filter";
    default:
      return "other";
  }
}

/** The documented fields of a streamed GenerateContentResponse (all optional: checked as read). */
interface WirePart extends WireCodePart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
  inlineData?: { mimeType?: string; data?: string };
}
interface WireUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}
interface WireGrounding {
  groundingChunks?: Array<{ web?: { uri?: string; title?: string } }>;
  groundingSupports?: Array<{ segment?: { text?: string }; groundingChunkIndices?: number[] }>;
}

/** Google Search / URL context grounding as Citations: one per supported segment and source. */
function groundingCitations(grounding: WireGrounding): Citation[] {
  const sources = (grounding.groundingChunks ?? []).map((chunk) => {
    const citation: Citation = {};
    if (chunk.web?.uri) citation.url = chunk.web.uri;
    if (chunk.web?.title) citation.title = chunk.web.title;
    return citation;
  });
  const supports = grounding.groundingSupports ?? [];
  if (supports.length === 0) return sources.filter((c) => c.url !== undefined);
  const citations: Citation[] = [];
  for (const support of supports) {
    for (const index of support.groundingChunkIndices ?? []) {
      const source = sources[index];
      if (source === undefined) continue;
      const citation = { ...source };
      if (support.segment?.text) citation.citedText = support.segment.text;
      citations.push(citation);
    }
  }
  return citations;
}

interface WireChunk {
  error?: unknown;
  modelVersion?: string;
  usageMetadata?: WireUsage;
  promptFeedback?: { blockReason?: string };
  candidates?: Array<{
    content?: { parts?: WirePart[] };
    finishReason?: string;
    groundingMetadata?: WireGrounding;
  }>;
}

/**
 * Gemini streamGenerateContent (SSE) → ChatChunks. Consecutive text (or thought) parts extend one
 * block; a function call arrives whole and becomes one tool_call delta. A thought signature on a
 * non-thought part is kept as an empty gemini thinking block just before that part's block, so the
 * formatter can put it back on the same part.
 */
export class GeminiStreamParser implements WireParser {
  private readonly assembler = new ContentAssembler();
  private current: TextBlock | ThinkingBlock | undefined;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private stopReason: ModelStopReason | undefined;
  private model: string | undefined;
  /** Grounding of the whole response (the last chunk's holds all of it): put on the last text block. */
  private citations: Citation[] = [];
  /** The last code execution run (its call and result), for the result parts that follow the code. */
  private codeRun: { call?: ToolCallBlock; result?: ToolResultBlock } = {};

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    let chunk: WireChunk | null;
    try {
      chunk = JSON.parse(data) as WireChunk | null;
    } catch {
      throw malformedChunk(PROVIDER, "valid JSON", data);
    }
    if (chunk === null || typeof chunk !== "object") throw malformedChunk(PROVIDER, "an object", data);
    if (chunk.error !== undefined) throw errorFromBody(chunk, { provider: PROVIDER });
    if (chunk.modelVersion) this.model = chunk.modelVersion;
    if (chunk.usageMetadata) this.readUsage(chunk.usageMetadata);
    const candidate = chunk.candidates?.[0];
    if (candidate === undefined) {
      if (chunk.promptFeedback?.blockReason) this.stopReason = "content_filter";
      return;
    }
    const parts = candidate.content?.parts;
    if (Array.isArray(parts)) for (const part of parts) this.onPart(part, data, out);
    if (candidate.finishReason) this.stopReason = geminiStopReason(candidate.finishReason);
    if (candidate.groundingMetadata) this.citations = groundingCitations(candidate.groundingMetadata);
  }

  private onPart(part: WirePart, data: string, out: ChatChunk[]): void {
    if (part.executableCode || part.codeExecutionResult) {
      // Code execution runs on Google's side: kept whole, its signature on the part it came with.
      this.current = undefined;
      if (part.executableCode) {
        const call = codeCall(part);
        this.assembler.content.push(call);
        this.codeRun = { call };
        return;
      }
      const result = addCodeResult(part, this.codeRun.call, this.codeRun.result);
      if (result !== undefined) {
        this.assembler.content.push(result);
        this.codeRun.result = result;
      }
      return;
    }
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      if (typeof name !== "string") throw malformedChunk(PROVIDER, "a functionCall name", data);
      this.keepSignature(part.thoughtSignature);
      const call = this.assembler.toolCall(id || newId("call"), name);
      call.input = JSON.stringify(args ?? {});
      out.push({ type: "tool_call", blockId: call.id, name: call.name, delta: call.input });
      this.current = undefined;
    } else if (part.thought === true) {
      let block = this.current;
      if (block?.type !== "thinking" || block.signature !== undefined) {
        block = this.assembler.thinking(PROVIDER);
        this.current = block;
      }
      if (part.thoughtSignature) block.signature = part.thoughtSignature;
      if (part.text) {
        block.thinking += part.text;
        out.push({ type: "thinking", blockId: block.id, delta: part.text });
      }
    } else if (typeof part.text === "string") {
      if (part.thoughtSignature) this.keepSignature(part.thoughtSignature);
      let block = this.current;
      if (block?.type !== "text") {
        block = this.assembler.text();
        this.current = block;
      }
      if (part.text !== "") {
        block.text += part.text;
        out.push({ type: "text", blockId: block.id, delta: part.text });
      }
    } else if (part.inlineData?.mimeType && part.inlineData.data) {
      this.keepSignature(part.thoughtSignature);
      const block = this.assembler.data(part.inlineData.mimeType);
      block.source.data = part.inlineData.data;
      out.push({
        type: "data",
        blockId: block.id,
        mediaType: block.source.mediaType,
        delta: block.source.data,
      });
      this.current = undefined;
    }
  }

  /** A signature on a non-thought part: an empty thinking block placed right before that part. */
  private keepSignature(signature: unknown): void {
    if (typeof signature !== "string" || signature === "") return;
    this.assembler.thinking(PROVIDER).signature = signature;
    this.current = undefined;
  }

  /** Gemini reports cumulative usage; thoughts count as output. */
  private readUsage(meta: WireUsage): void {
    const usage: Usage = {
      inputTokens: meta.promptTokenCount ?? 0,
      outputTokens: (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0),
    };
    if (meta.cachedContentTokenCount) usage.cacheReadTokens = meta.cachedContentTokenCount;
    this.usage = usage;
  }

  finish(): ChatFinal {
    if (this.stopReason === undefined) throw streamCut(PROVIDER);
    if (this.citations.length > 0) {
      const texts = this.assembler.content.filter((block) => block.type === "text" && block.text !== "");
      const last = texts.at(-1);
      if (last?.type === "text") last.citations = this.citations;
    }
    return this.assembler.final(this.usage, stopReasonWithTools(this.stopReason, this.assembler), this.model);
  }
}
