import { type Citation, newId, type Usage } from "../../message/index.js";
import { errorFromBody, malformedChunk, streamCut } from "../transport/errors.js";
import type { WireParser } from "../transport/types.js";
import type { ChatChunk, ChatFinal, ModelStopReason } from "../types.js";
import { hostedRun, hostedToolName } from "./responses-hosted-tools.js";

type Slot =
  | {
      type: "text";
      id: string;
      text: string;
      /** Set for a message item (its id is then the block id). */
      itemId?: string;
      status?: string;
      phase?: string;
      refusal?: true;
      citations?: Citation[];
    }
  | { type: "thinking"; id: string; text: string; summaryIndex: number; signature?: string }
  | { type: "tool_call"; id: string; name: string; input: string }
  /** A hosted tool run (web search, code interpreter...): the item as the API sent it. */
  | { type: "hosted"; id: string; item: Record<string, unknown> };

interface ResponsesItem {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  status?: string;
  phase?: string | null;
  content?: Array<{ type?: string; annotations?: WireAnnotation[] }>;
  encrypted_content?: string | null;
  summary?: Array<{ text?: string }>;
}

interface WireAnnotation {
  type?: string;
  url?: string;
  title?: string;
  filename?: string;
  start_index?: number;
  end_index?: number;
}

/** url_citation / file_citation annotations as Citations. */
function citationsOf(item: ResponsesItem): Citation[] {
  const citations: Citation[] = [];
  for (const part of item.content ?? []) {
    for (const note of part.annotations ?? []) {
      const citation: Citation = {};
      if (note.type === "url_citation" && note.url) citation.url = note.url;
      const title = note.title ?? note.filename;
      if (title) citation.title = title;
      if (typeof note.start_index === "number") citation.start = note.start_index;
      if (typeof note.end_index === "number") citation.end = note.end_index;
      if (citation.url !== undefined || citation.title !== undefined) citations.push(citation);
    }
  }
  return citations;
}

interface ResponsesEvent {
  type?: string;
  item_id?: string;
  item?: ResponsesItem;
  delta?: string;
  summary_index?: number;
  arguments?: string;
  response?: {
    id?: string;
    model?: string;
    status?: string;
    incomplete_details?: { reason?: string } | null;
    error?: unknown;
    usage?: {
      input_tokens?: number;
      output_tokens?: number;
      input_tokens_details?: { cached_tokens?: number } | null;
    } | null;
  };
}

/**
 * Responses API SSE → ChatChunks. Block ids are the item ids (the call id for function calls), so a
 * reasoning block keeps its item id and `encrypted_content` (as `signature`) for the round trip.
 * Complete on response.completed / response.incomplete; response.failed and `error` events throw.
 */
export class OpenAIResponsesStreamParser implements WireParser {
  private readonly slots: Slot[] = [];
  private readonly byItem = new Map<string, Slot>();
  private hasToolCalls = false;
  private hasRefusal = false;
  private stopReason: ModelStopReason | undefined;
  private usage: Usage = { inputTokens: 0, outputTokens: 0 };
  private model: string | undefined;
  private responseId: string | undefined;

  constructor(private readonly provider: string) {}

  onEvent(data: string, _event: string | undefined, out: ChatChunk[]): void {
    let event: ResponsesEvent;
    try {
      event = JSON.parse(data) as ResponsesEvent;
    } catch {
      throw malformedChunk(this.provider, "valid JSON", data);
    }
    if (typeof event.type !== "string") throw malformedChunk(this.provider, "a `type`", data);
    switch (event.type) {
      case "response.output_item.added":
        this.itemAdded(event.item, out);
        return;
      case "response.output_text.delta":
        this.delta("text", event, out);
        return;
      case "response.refusal.delta":
        this.delta("text", event, out, true);
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.delta("thinking", event, out);
        return;
      case "response.function_call_arguments.delta":
        this.delta("tool_call", event, out);
        return;
      case "response.output_item.done":
        this.itemDone(event.item);
        return;
      case "response.completed":
      case "response.incomplete":
        this.completed(event);
        return;
      case "response.failed":
        throw errorFromBody(event.response?.error ?? event, { provider: this.provider });
      case "error":
        throw errorFromBody(event, { provider: this.provider });
    }
  }

  private itemAdded(item: ResponsesItem | undefined, out: ChatChunk[]): void {
    if (item?.type === "function_call") {
      const slot: Slot = {
        type: "tool_call",
        id: item.call_id || newId("call"),
        name: item.name ?? "",
        input: "",
      };
      this.add(item.id ?? slot.id, slot);
      this.hasToolCalls = true;
      slot.input = item.arguments ?? "";
      out.push({ type: "tool_call", blockId: slot.id, name: slot.name, delta: slot.input });
    } else if (hostedToolName(item?.type) !== undefined && item?.id) {
      this.add(item.id, { type: "hosted", id: item.id, item: item as Record<string, unknown> });
    } else if (item?.type === "reasoning" && item.id) {
      this.add(item.id, { type: "thinking", id: item.id, text: "", summaryIndex: 0 });
    } else if (item?.type === "message" && item.id) {
      this.add(item.id, { type: "text", id: item.id, text: "", itemId: item.id });
    }
  }

  private add(key: string, slot: Slot): void {
    this.slots.push(slot);
    this.byItem.set(key, slot);
  }

  private delta(
    type: "text" | "thinking" | "tool_call",
    event: ResponsesEvent,
    out: ChatChunk[],
    refusal = false,
  ): void {
    const delta = event.delta;
    if (typeof delta !== "string")
      throw malformedChunk(this.provider, "a string `delta`", JSON.stringify(event));
    const key = event.item_id ?? type;
    let slot = this.byItem.get(key);
    if (slot === undefined) {
      if (type === "tool_call") return; // arguments for a call we never saw announced
      slot = type === "text" ? { type, id: key, text: "" } : { type, id: key, text: "", summaryIndex: 0 };
      this.add(key, slot);
    }
    if (refusal && slot.type === "text") {
      slot.refusal = true;
      this.hasRefusal = true;
    }
    if (slot.type === "tool_call") {
      slot.input += delta;
      out.push({ type: "tool_call", blockId: slot.id, delta });
      return;
    }
    if (slot.type === "hosted") return; // an item id reused for text: not documented
    let text = delta;
    if (
      slot.type === "thinking" &&
      event.summary_index !== undefined &&
      event.summary_index !== slot.summaryIndex
    ) {
      slot.summaryIndex = event.summary_index;
      if (slot.text !== "") text = `\n\n${delta}`;
    }
    slot.text += text;
    out.push({ type: slot.type, blockId: slot.id, delta: text });
  }

  private itemDone(item: ResponsesItem | undefined): void {
    if (item === undefined) return;
    const slot = this.byItem.get(item.id ?? "");
    if (hostedToolName(item.type) !== undefined && item.id) {
      // A hosted tool run arrives whole: kept as the done item says (the generated image included).
      if (slot?.type === "hosted") slot.item = item as Record<string, unknown>;
      else this.add(item.id, { type: "hosted", id: item.id, item: item as Record<string, unknown> });
      return;
    }
    if (slot?.type === "tool_call" && typeof item.arguments === "string") slot.input = item.arguments;
    if (slot?.type === "text" && item.type === "message") {
      if (item.status) slot.status = item.status;
      if (item.phase) slot.phase = item.phase;
      const citations = citationsOf(item);
      if (citations.length > 0) slot.citations = citations;
    }
    if (item.type === "reasoning" && item.id) {
      let thinking = slot;
      if (thinking === undefined) {
        thinking = { type: "thinking", id: item.id, text: "", summaryIndex: 0 };
        this.add(item.id, thinking);
      }
      if (thinking.type !== "thinking") return;
      if (thinking.text === "" && item.summary)
        thinking.text = item.summary.map((s) => s.text ?? "").join("\n\n");
      if (item.encrypted_content) thinking.signature = item.encrypted_content;
    }
  }

  private completed(event: ResponsesEvent): void {
    const response = event.response ?? {};
    if (response.model) this.model = response.model;
    if (response.id) this.responseId = response.id;
    const usage = response.usage;
    if (usage) {
      this.usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 };
      const cached = usage.input_tokens_details?.cached_tokens;
      if (cached) this.usage.cacheReadTokens = cached;
    }
    const reason = response.incomplete_details?.reason;
    if (event.type === "response.incomplete" || reason) {
      this.stopReason =
        reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "content_filter" : "other";
    } else this.stopReason = this.hasToolCalls ? "tool_calls" : this.hasRefusal ? "refusal" : "stop";
  }

  /** A text block with its message item's id, status and phase (sent back as the API gave them). */
  private textBlock(slot: Extract<Slot, { type: "text" }>): ChatFinal["content"][number] {
    const block: ChatFinal["content"][number] = { type: "text", id: slot.id, text: slot.text };
    if (slot.refusal) block.refusal = true;
    if (slot.citations !== undefined) block.citations = slot.citations;
    if (slot.itemId === undefined) return block;
    block.itemId = slot.itemId;
    if (slot.status !== undefined) block.itemStatus = slot.status;
    if (slot.phase !== undefined) block.phase = slot.phase;
    block.provider = this.provider;
    return block;
  }

  finish(): ChatFinal {
    if (this.stopReason === undefined) throw streamCut(this.provider);
    const content: ChatFinal["content"] = this.slots.flatMap((slot): ChatFinal["content"] => {
      if (slot.type === "hosted") return hostedRun(this.provider, slot.item);
      if (slot.type === "text") return [this.textBlock(slot)];
      if (slot.type === "tool_call") {
        return [{ type: "tool_call", id: slot.id, name: slot.name, input: slot.input, state: "pending" }];
      }
      const block: ChatFinal["content"][number] = {
        type: "thinking",
        id: slot.id,
        thinking: slot.text,
        itemId: slot.id,
        provider: this.provider,
      };
      if (slot.signature !== undefined) block.signature = slot.signature;
      return [block];
    });
    const final: ChatFinal = { type: "final", content, usage: this.usage, stopReason: this.stopReason };
    if (this.model) final.model = this.model;
    if (this.responseId) final.responseId = this.responseId;
    return final;
  }
}
