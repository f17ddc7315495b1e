import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { Middleware, MiddlewareContext } from "../agent/index.js";
import { isAsyncIterable } from "../agent/tool-output.js";
import type { AgentEvent } from "../event/index.js";
import { addCost, type Cost, toErrorInfo } from "../message/index.js";
import type { ChatFinal } from "../model/core.js";
import type { AgentState } from "../state/index.js";
import type { ToolChunk } from "../tool/index.js";
import { DECISION_SPAN_EVENT, decisionAttributes } from "./decision-span-event.js";
import { AgentScopeAttr, GenAI, inputMessagesJson, outputMessagesJson, providerName } from "./gen-ai.js";

export interface TracingOptions {
  /** The tracer to use (default: `trace.getTracer("agentscope")` from the globally registered provider). */
  tracer?: Tracer;
  /** Record prompts, answers, tool arguments and tool results on the spans (default false). */
  captureContent?: boolean;
  /** Middleware name (default `tracing`). */
  name?: string;
}

/** The live `invoke_agent` span of a running reply. Spans are not JSON, so they stay out of the state. */
interface ReplySpan {
  span: Span;
  context: Context;
  inputTokens: number;
  outputTokens: number;
  /** The sum of the calls' `cost`, when the agent prices them. */
  cost?: Cost;
  modelSeen: boolean;
  replyIdSet: boolean;
  /** Ends each tool span still open: the reply ends them if it ends first (an interrupt drops a tool). */
  openTools: Set<() => void>;
}

/**
 * OpenTelemetry spans for every reply, through `@opentelemetry/api` only (bring your own SDK):
 * `invoke_agent {agent}` for the reply, with `chat {model}` per model call and `execute_tool {tool}`
 * per tool call under it, carrying the GenAI semantic-convention attributes. Parents are passed
 * explicitly, so nesting is right with parallel tools and concurrent sessions, with or without a
 * context manager. Content is recorded only with `captureContent: true`.
 */
export function tracingMiddleware(options: TracingOptions = {}): Middleware {
  const tracer = options.tracer ?? trace.getTracer("agentscope");
  const capture = options.captureContent === true;
  // Keyed by the session's state object: a state runs one reply at a time.
  const live = new WeakMap<AgentState, ReplySpan>();
  const parentOf = (ctx: MiddlewareContext): Context => live.get(ctx.state)?.context ?? context.active();

  return {
    name: options.name ?? "tracing",

    async *onReply(input, ctx, next) {
      const parent = context.active();
      const span = tracer.startSpan(
        `invoke_agent ${ctx.agentName}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [GenAI.operationName]: "invoke_agent",
            [GenAI.agentName]: ctx.agentName,
            [GenAI.conversationId]: ctx.state.sessionId,
          },
        },
        parent,
      );
      const reply: ReplySpan = {
        span,
        context: trace.setSpan(parent, span),
        inputTokens: 0,
        outputTokens: 0,
        modelSeen: false,
        replyIdSet: false,
        openTools: new Set(),
      };
      live.set(ctx.state, reply);
      let ended = false;
      try {
        for await (const event of bound(next(input), reply.context)) {
          if (observeReplyEvent(reply, event)) ended = true;
          yield event;
        }
        if (!ended && ctx.state.replyContext?.waitingFor) {
          span.setAttribute(AgentScopeAttr.pausedFor, ctx.state.replyContext.waitingFor);
        }
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        live.delete(ctx.state);
        for (const interrupt of [...reply.openTools]) interrupt();
        span.setAttributes({
          [GenAI.inputTokens]: reply.inputTokens,
          [GenAI.outputTokens]: reply.outputTokens,
        });
        if (reply.cost) setCostAttributes(span, reply.cost);
        span.end();
      }
    },

    async *onModelCall(request, ctx, next) {
      const { model, messages, options: chat } = request;
      const attributes: Attributes = {
        [GenAI.operationName]: "chat",
        [GenAI.providerName]: providerName(model.provider),
        [GenAI.requestModel]: model.name,
        [GenAI.conversationId]: ctx.state.sessionId,
      };
      if (chat.maxTokens !== undefined) attributes[GenAI.requestMaxTokens] = chat.maxTokens;
      if (chat.temperature !== undefined) attributes[GenAI.requestTemperature] = chat.temperature;
      if (capture) {
        const { system, input } = inputMessagesJson(messages);
        attributes[GenAI.inputMessages] = input;
        if (system !== undefined) attributes[GenAI.systemInstructions] = system;
        if (chat.tools?.length) attributes[GenAI.toolDefinitions] = JSON.stringify(chat.tools);
      }
      const reply = live.get(ctx.state);
      if (reply && !reply.modelSeen) {
        reply.modelSeen = true;
        reply.span.setAttributes({
          [GenAI.providerName]: providerName(model.provider),
          [GenAI.requestModel]: model.name,
        });
      }
      const parent = parentOf(ctx);
      const span = tracer.startSpan(`chat ${model.name}`, { kind: SpanKind.CLIENT, attributes }, parent);
      const spanContext = trace.setSpan(parent, span);
      try {
        const stream = context.with(spanContext, () => next(request));
        for await (const chunk of bound(stream, spanContext)) {
          if (chunk.type === "final") recordFinal(span, chunk, model.name, capture);
          yield chunk;
        }
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },

    async onToolCall(request, ctx, next) {
      const { call, tool } = request;
      const attributes: Attributes = {
        [GenAI.operationName]: "execute_tool",
        [GenAI.toolName]: tool.name,
        [GenAI.toolCallId]: call.id,
        [GenAI.toolType]: "function",
        [GenAI.conversationId]: ctx.state.sessionId,
      };
      if (tool.description) attributes[GenAI.toolDescription] = tool.description;
      if (capture) attributes[GenAI.toolCallArguments] = call.input;
      const parent = parentOf(ctx);
      const span = tracer.startSpan(
        `execute_tool ${tool.name}`,
        { kind: SpanKind.INTERNAL, attributes },
        parent,
      );
      const spanContext = trace.setSpan(parent, span);
      const end = endOnce(span, live.get(ctx.state)?.openTools);
      let outcome: unknown;
      try {
        outcome = await context.with(spanContext, () => next(request));
      } catch (error) {
        recordError(span, error);
        end();
        throw error;
      }
      if (isAsyncIterable(outcome)) return traceToolStream(outcome, span, end, spanContext, capture);
      if (capture) span.setAttribute(GenAI.toolCallResult, resultText(outcome));
      end();
      return outcome;
    },
  };
}

/** Ends `span` once; until then `open` holds a way for the reply to end it as interrupted. */
function endOnce(span: Span, open: Set<() => void> | undefined): () => void {
  let ended = false;
  const interrupt = () => {
    span.setAttribute(AgentScopeAttr.interrupted, true);
    end();
  };
  const end = () => {
    if (ended) return;
    ended = true;
    open?.delete(interrupt);
    span.end();
  };
  open?.add(interrupt);
  return end;
}

/** `agentscope.cost.usd` (absent when some call had no price) and the models without one. */
function setCostAttributes(span: Span, cost: Cost): void {
  if (cost.usd !== null) span.setAttribute(AgentScopeAttr.costUsd, cost.usd);
  span.setAttribute(AgentScopeAttr.pricedCostUsd, cost.pricedUsd);
  if (cost.unpriced) span.setAttribute(AgentScopeAttr.unpriced, cost.unpriced);
}

/** Folds the reply's events into its span; returns true on REPLY_END. */
function observeReplyEvent(reply: ReplySpan, event: AgentEvent): boolean {
  if (!reply.replyIdSet) {
    // The first event names the reply: REPLY_START, or the answer that resumes a paused reply.
    reply.replyIdSet = true;
    reply.span.setAttribute(AgentScopeAttr.replyId, event.replyId);
  }
  switch (event.type) {
    case "MODEL_CALL_END":
      reply.inputTokens += event.inputTokens;
      reply.outputTokens += event.outputTokens;
      if (event.cost) reply.cost = addCost(reply.cost, event.cost);
      return false;
    case "DECISION":
      reply.span.addEvent(DECISION_SPAN_EVENT, decisionAttributes(event), new Date(event.createdAt));
      return false;
    case "REPLY_END":
      reply.span.setAttribute(AgentScopeAttr.finishedReason, event.finishedReason);
      if (event.error) {
        reply.span.setAttribute(GenAI.errorType, event.error.type);
        reply.span.addEvent("exception", {
          "exception.type": event.error.type,
          "exception.message": event.error.message,
        });
        reply.span.setStatus({ code: SpanStatusCode.ERROR, message: event.error.message });
      } else if (event.finishedReason === "error") {
        reply.span.setStatus({ code: SpanStatusCode.ERROR, message: "the reply ended with an error" });
      }
      return true;
    default:
      return false;
  }
}

function recordFinal(span: Span, final: ChatFinal, requested: string, capture: boolean): void {
  const attributes: Attributes = {
    [GenAI.responseModel]: final.model ?? requested,
    [GenAI.inputTokens]: final.usage.inputTokens,
    [GenAI.outputTokens]: final.usage.outputTokens,
    [GenAI.responseFinishReasons]: [final.stopReason],
  };
  if (final.usage.cacheReadTokens !== undefined)
    attributes[GenAI.cacheReadTokens] = final.usage.cacheReadTokens;
  if (final.usage.cacheWriteTokens !== undefined)
    attributes[GenAI.cacheWriteTokens] = final.usage.cacheWriteTokens;
  if (capture) attributes[GenAI.outputMessages] = outputMessagesJson(final);
  span.setAttributes(attributes);
}

/** Marks a span failed (status ERROR, an exception event, `error.type`); an abort is an interruption. */
function recordError(span: Span, error: unknown): void {
  const info = toErrorInfo(error);
  if (info.type === "aborted") {
    span.setAttribute(AgentScopeAttr.interrupted, true);
    return;
  }
  span.setAttribute(GenAI.errorType, info.type);
  span.recordException(error instanceof Error ? error : { name: info.type, message: info.message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: info.message });
}

/** A streamed tool result: the span lasts until the stream ends, fails or is abandoned. */
async function* traceToolStream(
  chunks: AsyncIterable<ToolChunk>,
  span: Span,
  end: () => void,
  spanContext: Context,
  capture: boolean,
): AsyncGenerator<ToolChunk> {
  let text = "";
  try {
    for await (const chunk of bound(chunks, spanContext)) {
      if (capture) text += typeof chunk === "string" ? chunk : chunk.type === "text" ? chunk.text : "";
      yield chunk;
    }
    if (capture) span.setAttribute(GenAI.toolCallResult, text);
  } catch (error) {
    recordError(span, error);
    throw error;
  } finally {
    end();
  }
}

function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value) ?? "";
}

/** Pulls from `iterable` with `ctx` active, so work done inside (fetches, nested spans) nests under it. */
function bound<T>(iterable: AsyncIterable<T>, ctx: Context): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = context.with(ctx, () => iterable[Symbol.asyncIterator]());
      return {
        next: () => context.with(ctx, () => iterator.next()),
        return: (value?: unknown) =>
          iterator.return
            ? context.with(ctx, () => iterator.return!(value))
            : Promise.resolve({ done: true as const, value: undefined as T }),
      };
    },
  };
}
