import { createEvent, type EventInit } from "../event/index.js";
import { type Msg, nowIso, toErrorInfo } from "../message/index.js";
import { type ChatFinal, type ChatModel, type ChatOptions, isBatchedStream } from "../model/core.js";
import { ModelStreamEvents } from "./model-stream-events.js";
import { ReaderLeft } from "./pull-events.js";
import type { ReplyRun } from "./reply-run.js";

/** The input of one model call: built once per iteration, for the compression check and the call. */
export interface ModelInput {
  messages: Msg[];
  options: ChatOptions;
}

/** How a reasoning step ended: the model's final chunk, or no answer (the call failed, or was aborted). */
export type Reasoned = { final: ChatFinal } | { final: undefined; failure: unknown };

/**
 * Reason: one model call streamed into events. MODEL_CALL_START, each delta as its event (the deltas
 * of one network read handed over together), then the blocks of the final chunk and MODEL_CALL_END
 * with the usage. A call that fails before any block streamed is made again on the fallback model
 * (MODEL_CALL_START with `fallbackFrom`); a failed call's MODEL_CALL_END carries the error, and the
 * blocks it streamed are ended. `failure` is undefined when the call was aborted.
 */
export async function reason(run: ReplyRun, input: ModelInput): Promise<Reasoned> {
  const events = new ModelStreamEvents(run);
  let model = run.config.model;
  let fallbackFrom: string | undefined;
  while (true) {
    run.emit(
      "MODEL_CALL_START",
      fallbackFrom ? { modelName: model.name, fallbackFrom } : { modelName: model.name },
    );
    await run.send();
    let final: ChatFinal;
    try {
      final = await streamCall(run, model, input, events);
    } catch (error) {
      if (error instanceof ReaderLeft) throw error;
      const aborted = run.options.signal?.aborted === true;
      const info = aborted
        ? { type: "aborted" as const, message: "interrupted" }
        : toErrorInfo(error, "upstream");
      run.emit("MODEL_CALL_END", { modelName: model.name, inputTokens: 0, outputTokens: 0, error: info });
      const fallback = run.config.fallbackModel;
      if (!aborted && fallback && model !== fallback && !events.streamed) {
        fallbackFrom = model.name;
        model = fallback;
        continue;
      }
      events.endOpen();
      return { final: undefined, failure: aborted ? undefined : error };
    }
    events.final(final);
    run.push(createEvent("MODEL_CALL_END", callEnd(run, model, final)));
    return { final };
  }
}

/** Streams one call into events; its final chunk (the stream is read to its end, so middleware can finish). */
async function streamCall(
  run: ReplyRun,
  model: ChatModel,
  input: ModelInput,
  events: ModelStreamEvents,
): Promise<ChatFinal> {
  let final: ChatFinal | undefined;
  const stream = run.stages.callModel({ model, messages: input.messages, options: input.options });
  if (isBatchedStream(stream)) {
    // One await per network read: the deltas of a read become events, handed over together.
    for await (const batch of stream.batches()) {
      const readAt = nowIso(); // one timestamp for the events of one network read
      for (let c = 0; c < batch.length; c++) {
        const chunk = batch[c]!;
        if (chunk.type === "final") final = chunk;
        else events.delta(chunk, readAt);
      }
      const taking = run.sendStep();
      if (taking !== undefined) await taking;
    }
  } else {
    for await (const chunk of stream) {
      if (chunk.type === "final") {
        final = chunk;
        continue;
      }
      events.delta(chunk);
      const taking = run.sendStep();
      if (taking !== undefined) await taking;
    }
  }
  if (!final) throw new Error(`model "${model.name}" ended its stream without a final chunk`);
  return final;
}

function callEnd(run: ReplyRun, model: ChatModel, final: ChatFinal): EventInit<"MODEL_CALL_END"> {
  const usage = final.usage;
  const end: EventInit<"MODEL_CALL_END"> = {
    replyId: run.msg.id,
    modelName: final.model ?? model.name,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    stopReason: final.stopReason,
  };
  if (final.responseId !== undefined) end.responseId = final.responseId;
  if (usage.cacheReadTokens !== undefined) end.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) end.cacheWriteTokens = usage.cacheWriteTokens;
  if (run.config.pricing) end.cost = run.config.pricing.cost(model.provider, end.modelName, usage);
  return end;
}
