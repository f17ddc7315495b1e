import type { EventInit } from "../event/index.js";
import {
  type DataBlock,
  type Msg,
  type TextBlock,
  type ToolResultOutput,
  textBlock,
} from "../message/index.js";
import type { ChatChunk, ChatFinal, ChatModel } from "../model/core.js";
import { ToolError } from "../tool/index.js";
import {
  type Guardrail,
  type GuardrailCheck,
  type GuardrailOptions,
  type GuardrailStage,
  type GuardrailTrip,
  runGuardrails,
  tripText,
} from "./guardrail.js";
import type { ModelCallRequest } from "./middleware.js";
import { openCalls } from "./open-calls.js";
import type { ReplyRun } from "./reply-run.js";
import type { ReplyStages } from "./reply-stages.js";
import { DEFAULT_LOOK_AHEAD, guardStreamedText } from "./streamed-output.js";
import { chunkToPart, isAsyncIterable, type OutputPart, valueToParts } from "./tool-output.js";

/**
 * The stages of a reply with guardrails around them (chosen once, when the Agent is built: an agent
 * without guardrails never reaches this file). Input guardrails run before the first reasoning step
 * (parallel ones while the first model call streams, its chunks held until they pass); output ones
 * after the step that gives the answer (streamed ones on each call's text as it streams, with a
 * bounded look-ahead); tool-input ones before the permission engine; tool-result ones on the whole
 * result before any of it becomes an event.
 */
export function guardedStages(inner: ReplyStages, run: ReplyRun, options: GuardrailOptions): ReplyStages {
  const input = options.input ?? [];
  const blocking = input.filter((g) => !g.parallel);
  const parallel = input.filter((g) => g.parallel);
  const output = (options.output ?? []).filter((g) => !g.streamed);
  const streamedOutput = (options.output ?? []).filter((g) => g.streamed);
  const toolInput = options.toolInput ?? [];
  const toolResult = options.toolResult ?? [];
  const stopOnToolTrip = options.onToolTrip === "stop";
  /** The parallel input guardrails' decision, while it is not made (every model call till then is held). */
  let pending: Promise<GuardrailTrip | undefined> | undefined;
  /** Their trip, when they tripped before a model call could be held. */
  let decidedTrip: GuardrailTrip | undefined;

  /** A guardrail's own model call, counted in the reply's usage and cost like any other. */
  const reportModelCall = (model: ChatModel, final: ChatFinal): void => {
    const end: Omit<EventInit<"MODEL_CALL_END">, "replyId"> = {
      modelName: final.model ?? model.name,
      inputTokens: final.usage.inputTokens,
      outputTokens: final.usage.outputTokens,
      metadata: { purpose: "guardrail" },
    };
    if (final.usage.cacheReadTokens !== undefined) end.cacheReadTokens = final.usage.cacheReadTokens;
    if (final.usage.cacheWriteTokens !== undefined) end.cacheWriteTokens = final.usage.cacheWriteTokens;
    if (run.config.pricing) end.cost = run.config.pricing.cost(model.provider, end.modelName, final.usage);
    run.emit("MODEL_CALL_END", end);
  };
  const check = (stage: GuardrailStage, text: string, toolName?: string): GuardrailCheck => {
    const base: GuardrailCheck = {
      stage,
      text,
      sessionId: run.state.sessionId,
      replyId: run.msg.id,
      signal: run.options.signal ?? new AbortController().signal,
      reportModelCall,
    };
    if (toolName !== undefined) base.toolName = toolName;
    return base;
  };

  // A fallback call after a failed first one is held too, until the decision is made.
  const callHeld = (request: ModelCallRequest): AsyncIterable<ChatChunk> => {
    if (decidedTrip) return droppedCall(run, decidedTrip);
    return pending === undefined
      ? inner.callModel(request)
      : heldUntil(run, pending, inner.callModel(request));
  };

  const stages: ReplyStages = {
    ...inner,
    wrapped: inner.wrapped || output.length > 0,
    beforeReasoning: async (iteration) => {
      await inner.beforeReasoning(iteration);
      if (iteration !== 1 || input.length === 0 || run.stopReason !== undefined) return;
      const blocks = userTextOfReply(run);
      for (const block of blocks) {
        const verdict = await runGuardrails(blocking, check("input", block.text));
        if ("trip" in verdict) return tripped(run, verdict.trip);
        // The stored user message is redacted: the model, the store and later replies see the new text.
        if (verdict.rewritten) block.text = verdict.text;
      }
      if (parallel.length === 0) return;
      const deciding = checkInParallel(run, parallel, blocks, check);
      pending = deciding;
      void deciding.then((trip) => {
        if (pending !== deciding) return;
        pending = undefined;
        decidedTrip = trip;
      });
    },
    callModel: (request) => {
      const chunks = callHeld(request);
      if (streamedOutput.length === 0) return chunks;
      return guardStreamedText(chunks, {
        check: (text) => runGuardrails(streamedOutput, check("output", text)),
        lookAhead: options.lookAhead ?? DEFAULT_LOOK_AHEAD,
        tripped: (trip) => tripped(run, trip),
        inputTokens: () => request.model.countTokens(request.messages, request.options.tools),
      });
    },
    afterReasoning: async (reply) => {
      await inner.afterReasoning(reply);
      if (output.length === 0 || run.stopReason !== undefined || openCalls(reply).length > 0) return;
      const text = answerText(reply);
      if (text === "") return;
      const verdict = await runGuardrails(output, check("output", text));
      if ("trip" in verdict) return tripped(run, verdict.trip);
      if (verdict.rewritten) {
        const trip = rewriteTrip(output, "output", "the answer had to be rewritten after it streamed");
        return tripped(run, trip);
      }
    },
    decide: async (tool, value, context) => {
      if (toolInput.length > 0) {
        const verdict = await runGuardrails(
          toolInput,
          check("tool_input", JSON.stringify(value) ?? "", tool.name),
        );
        const trip =
          "trip" in verdict
            ? verdict.trip
            : verdict.rewritten
              ? rewriteTrip(toolInput, "tool_input", "the arguments had to be rewritten", tool.name)
              : undefined;
        if (trip) {
          if (stopOnToolTrip) tripped(run, trip);
          return { behavior: "deny", reason: tripText(trip) };
        }
      }
      return inner.decide(tool, value, context);
    },
    callTool: (call, tool, value, ctx, decided) => {
      const result = inner.callTool(call, tool, value, ctx, decided);
      // The structured-output tool only records the answer: there is no result to guard.
      if (toolResult.length === 0 || tool === run.output.tool) return result;
      return guardResult(
        result,
        async (parts) => {
          const guarded = await guardParts(parts, (text) =>
            runGuardrails(toolResult, check("tool_result", text, tool.name)),
          );
          if ("trip" in guarded) {
            if (stopOnToolTrip) tripped(run, guarded.trip);
            throw new ToolError(`[result withheld] ${tripText(guarded.trip)}`);
          }
          return guarded.output.length === 0 ? "" : guarded.output;
        },
        ctx.signal,
      );
    },
  };
  return stages;
}

/** Ends the reply after this step with REQUEST_STOP carrying the trip (the first trip wins). */
function tripped(run: ReplyRun, trip: GuardrailTrip): void {
  if (run.stopReason !== undefined) return;
  run.stopReason = tripText(trip);
  run.stopMetadata = { guardrailTrip: trip };
}

/** A guardrail that may only pass or trip rewrote: that is a trip (named after the first of the list). */
function rewriteTrip(
  list: readonly Guardrail[],
  stage: GuardrailStage,
  reason: string,
  toolName?: string,
): GuardrailTrip {
  const trip: GuardrailTrip = {
    guardrail: list.map((g) => g.name).join(", "),
    stage,
    kind: "rewrite",
    reason,
  };
  if (toolName !== undefined) trip.toolName = toolName;
  return trip;
}

/** The text blocks of the user messages this reply answers (the ones just before the reply Msg). */
function userTextOfReply(run: ReplyRun): TextBlock[] {
  const context = run.state.context;
  const blocks: TextBlock[] = [];
  for (let i = context.indexOf(run.msg) - 1; i >= 0; i--) {
    const msg = context[i] as Msg;
    if (msg.role !== "user") break;
    for (const block of msg.content) if (block.type === "text") blocks.unshift(block);
  }
  return blocks;
}

/** The answer: the text blocks after the reply's last tool call, result or hint. */
function answerText(reply: Msg): string {
  const last = reply.content.findLastIndex((b) => b.type !== "text" && b.type !== "thinking");
  return reply.content
    .slice(last + 1)
    .flatMap((b) => (b.type === "text" ? [b.text] : []))
    .join("\n");
}

/** The parallel input guardrails over every block; the first trip aborts the others. */
function checkInParallel(
  run: ReplyRun,
  guardrails: readonly Guardrail[],
  blocks: readonly TextBlock[],
  check: (stage: GuardrailStage, text: string) => GuardrailCheck,
): Promise<GuardrailTrip | undefined> {
  const controller = new AbortController();
  const outer = run.options.signal;
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  const checks = guardrails.flatMap((guardrail) =>
    blocks.map(async (block): Promise<GuardrailTrip | undefined> => {
      const verdict = await runGuardrails([guardrail], { ...check("input", block.text), signal });
      if ("trip" in verdict) return verdict.trip;
      if (verdict.rewritten)
        return rewriteTrip(
          [guardrail],
          "input",
          "a parallel guardrail cannot rewrite: the model has the text",
        );
      return undefined;
    }),
  );
  // runGuardrails never rejects (a failing guardrail trips), so neither does this.
  return new Promise((resolve) => {
    let left = checks.length;
    for (const one of checks) {
      void one.then((trip) => {
        if (trip) {
          controller.abort(new Error(`guardrail "${trip.guardrail}" tripped`));
          resolve(trip);
        } else if (--left === 0) resolve(undefined);
      });
    }
  });
}

/** A model call a tripped input guardrail drops: an empty answer, and the reply stops with the trip. */
async function* droppedCall(run: ReplyRun, trip: GuardrailTrip): AsyncGenerator<ChatChunk> {
  tripped(run, trip);
  const empty: ChatFinal = {
    type: "final",
    content: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    stopReason: "other",
  };
  yield empty;
}

const DECIDED: unique symbol = Symbol("decided");

/**
 * The model call's chunks, held until the parallel input guardrails have decided: passed, they go out
 * in order and the rest streams on; tripped, the call is dropped and an empty answer ends it (the
 * reply then stops with the trip).
 */
async function* heldUntil(
  run: ReplyRun,
  decision: Promise<GuardrailTrip | undefined>,
  chunks: AsyncIterable<ChatChunk>,
): AsyncGenerator<ChatChunk> {
  const source = chunks[Symbol.asyncIterator]();
  const held: ChatChunk[] = [];
  let trip: GuardrailTrip | undefined;
  const decided = decision.then((found): typeof DECIDED => {
    trip = found;
    return DECIDED;
  });
  let next = source.next();
  let ended = false;
  for (;;) {
    const first = await Promise.race([next, decided]);
    if (first === DECIDED) break;
    if (first.done) {
      ended = true;
      await decided;
      break;
    }
    held.push(first.value);
    next = source.next();
  }
  if (trip) {
    if (!ended) void source.return?.()?.catch(() => {});
    yield* droppedCall(run, trip);
    return;
  }
  yield* held;
  if (ended) return;
  for (let item = await next; !item.done; item = await source.next()) yield item.value;
}

type GuardedParts = { output: Array<TextBlock | DataBlock> } | { trip: GuardrailTrip };

/** Each run of text between data blocks through `guard`; data blocks pass as they are. */
async function guardParts(
  parts: readonly OutputPart[],
  guard: (text: string) => ReturnType<typeof runGuardrails>,
): Promise<GuardedParts> {
  const output: Array<TextBlock | DataBlock> = [];
  let text: string | undefined;
  const flush = async (): Promise<GuardrailTrip | undefined> => {
    if (text === undefined) return undefined;
    const verdict = await guard(text);
    text = undefined;
    if ("trip" in verdict) return verdict.trip;
    if (verdict.text !== "") output.push(textBlock(verdict.text));
    return undefined;
  };
  for (const part of parts) {
    if (part.kind === "text") {
      text = (text ?? "") + part.text;
      continue;
    }
    const trip = await flush();
    if (trip) return { trip };
    output.push(part.block);
  }
  const trip = await flush();
  return trip ? { trip } : { output };
}

/**
 * A tool's value (a value, its promise or its stream) read whole, then `guard`ed: what comes back is
 * the value the run emits. A ToolError's own output is guarded the same way.
 */
async function guardResult(
  result: unknown,
  guard: (parts: OutputPart[]) => Promise<ToolResultOutput>,
  signal: AbortSignal,
): Promise<ToolResultOutput> {
  let value: unknown;
  try {
    value = await result;
  } catch (error) {
    if (!ToolError.isInstance(error) || error.output === undefined) throw error;
    throw new ToolError(error.message, { output: await guard(valueToParts(error.output)), cause: error });
  }
  const parts: OutputPart[] = [];
  if (isAsyncIterable(value)) {
    for await (const chunk of value) {
      if (signal.aborted) break;
      parts.push(chunkToPart(chunk));
    }
  } else parts.push(...valueToParts(value));
  return guard(parts);
}
