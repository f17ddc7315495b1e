import type { AgentEvent, ModelCallEndEvent } from "../../../../event/types.js";
import { addCost, type Cost } from "../../../../message/cost.js";

export type SpanKind = "reply" | "model" | "compression" | "tool" | "pause";

/** One bar of the trace waterfall: when it started and ended (ms from the first event), how deep it nests, what it carried. */
export interface TraceSpan {
  id: string;
  kind: SpanKind;
  label: string;
  /** The agent path (`main`, `main/researcher`): sub-agent runs nest one level per segment. */
  source: string;
  depth: number;
  start: number;
  /** Undefined while it is still open (a reply in flight, a pause not yet answered). */
  end?: number;
  /** What the span carried: the request and response of a model call, a tool's input and output, ... */
  payload: Record<string, unknown>;
}

/** A reply's model calls summed: what its span's payload shows beside its finish reason. */
interface ReplyTotals {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  cost?: Cost;
}

const addCall = (total: ReplyTotals | undefined, call: ModelCallEndEvent): ReplyTotals => {
  const sum: ReplyTotals = {
    modelCalls: (total?.modelCalls ?? 0) + 1,
    inputTokens: (total?.inputTokens ?? 0) + call.inputTokens,
    outputTokens: (total?.outputTokens ?? 0) + call.outputTokens,
  };
  const cost = call.cost ? addCost(total?.cost, call.cost) : total?.cost;
  if (cost) sum.cost = cost;
  return sum;
};

/** A reply sits at twice its agent's nesting; its calls one deeper (a sub-run nests under the tool call that ran it). */
const depthOf = (source: string) => (source.split("/").length - 1) * 2;

/**
 * The spans of a session's event log: each reply (sub-agent runs nested under their parent), each
 * model call with its request (the `eval.request` events of `evalRecorder()`, when present), the
 * blocks it answered, its tokens and cost (a reply: those of its calls summed), each tool run with its input and output, each pause for a
 * person (REQUIRE_USER_CONFIRM to its answer) and each context compression. Pure: the waterfall
 * draws what this returns, and it works as well for a reply of last week as for one in flight.
 */
export function traceSpans(events: readonly AgentEvent[]): TraceSpan[] {
  if (events.length === 0) return [];
  const t0 = Date.parse(events[0]!.createdAt);
  const spans: TraceSpan[] = [];
  const open = new Map<string, TraceSpan>();
  const calls = new Map<string, { name: string; input: string }>();
  /** The tool calls each reply's open model call has made. */
  const made = new Map<string, string[]>();
  const text = new Map<string, Map<string, string>>();
  /** Each reply's tokens and cost so far, summed over its model calls. */
  const totals = new Map<string, ReplyTotals>();
  const at = (event: AgentEvent) => Date.parse(event.createdAt) - t0;
  const begin = (
    key: string,
    event: AgentEvent,
    kind: SpanKind,
    label: string,
    payload: Record<string, unknown>,
  ) => {
    const source = event.source ?? "main";
    const span: TraceSpan = {
      id: `${kind}:${key}`,
      kind,
      label,
      source,
      depth: depthOf(source),
      start: at(event),
      payload,
    };
    if (kind !== "reply") span.depth += 1;
    spans.push(span);
    open.set(`${kind}:${key}`, span);
    return span;
  };
  const close = (key: string, event: AgentEvent, extra: Record<string, unknown> = {}) => {
    const span = open.get(key);
    if (!span) return undefined;
    open.delete(key);
    span.end = at(event);
    Object.assign(span.payload, extra);
    return span;
  };
  for (const event of events) {
    switch (event.type) {
      case "REPLY_START":
        begin(event.replyId, event, "reply", `${event.name} reply`, { replyId: event.replyId });
        break;
      case "REPLY_END":
        close(`reply:${event.replyId}`, event, {
          ...totals.get(event.replyId),
          finishedReason: event.finishedReason,
          ...(event.error ? { error: event.error } : {}),
        });
        break;
      case "MODEL_CALL_START": {
        const compression =
          (event.metadata as { purpose?: string } | undefined)?.purpose === "context_compression";
        const kind = compression ? "compression" : "model";
        begin(
          event.replyId,
          event,
          kind,
          compression ? `compress with ${event.modelName}` : event.modelName,
          {
            model: event.modelName,
            ...(event.fallbackFrom ? { fallbackFrom: event.fallbackFrom } : {}),
          },
        );
        text.set(event.replyId, new Map());
        made.set(event.replyId, []);
        break;
      }
      case "CUSTOM": {
        const span = open.get(`model:${event.replyId}`);
        if (span && event.name === "eval.request") span.payload.request = event.value;
        break;
      }
      case "TEXT_BLOCK_DELTA":
      case "THINKING_BLOCK_DELTA": {
        const blocks = text.get(event.replyId);
        const key = `${event.type === "TEXT_BLOCK_DELTA" ? "text" : "thinking"}:${event.blockId}`;
        if (blocks) blocks.set(key, (blocks.get(key) ?? "") + event.delta);
        break;
      }
      case "TOOL_CALL_START":
        calls.set(event.toolCallId, { name: event.toolCallName, input: "" });
        made.get(event.replyId)?.push(event.toolCallId);
        break;
      case "TOOL_CALL_DELTA": {
        const call = calls.get(event.toolCallId);
        if (call) call.input += event.delta;
        break;
      }
      case "MODEL_CALL_END": {
        const key = open.has(`model:${event.replyId}`)
          ? `model:${event.replyId}`
          : `compression:${event.replyId}`;
        const blocks = [...(text.get(event.replyId) ?? new Map<string, string>())].map(([id, value]) => ({
          type: id.slice(0, id.indexOf(":")),
          text: value,
        }));
        const toolCalls = (made.get(event.replyId) ?? []).map((id) => ({ id, ...calls.get(id) }));
        close(key, event, {
          response: blocks,
          toolCalls,
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          ...(event.cacheReadTokens !== undefined ? { cacheReadTokens: event.cacheReadTokens } : {}),
          ...(event.cacheWriteTokens !== undefined ? { cacheWriteTokens: event.cacheWriteTokens } : {}),
          ...(event.cost ? { cost: event.cost } : {}),
          ...(event.stopReason ? { stopReason: event.stopReason } : {}),
          ...(event.error ? { error: event.error } : {}),
        });
        text.delete(event.replyId);
        made.delete(event.replyId);
        totals.set(event.replyId, addCall(totals.get(event.replyId), event));
        break;
      }
      case "REQUIRE_USER_CONFIRM":
        begin(event.replyId, event, "pause", "waiting for a person", {
          asked: event.toolCalls.map((call) => ({ name: call.name, input: call.input })),
        });
        break;
      case "USER_CONFIRM_RESULT":
        close(`pause:${event.replyId}`, event, {
          answers: event.confirmResults.map((r) => ({ tool: r.toolCall.name, confirmed: r.confirmed })),
        });
        break;
      case "TOOL_RESULT_START": {
        const call = calls.get(event.toolCallId);
        begin(event.toolCallId, event, "tool", event.toolCallName, {
          toolCallId: event.toolCallId,
          input: call?.input ?? "",
          output: "",
        });
        break;
      }
      case "TOOL_RESULT_TEXT_DELTA": {
        const span = open.get(`tool:${event.toolCallId}`);
        if (span) span.payload.output = `${span.payload.output as string}${event.delta}`;
        break;
      }
      case "TOOL_RESULT_END":
        close(`tool:${event.toolCallId}`, event, { state: event.state });
        break;
    }
  }
  return spans;
}
