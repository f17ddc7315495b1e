import {
  type AgentEvent,
  createEvent,
  type EventInit,
  type ExternalExecutionResultEvent,
  type InputEvent,
  type UserConfirmResultEvent,
} from "../event/index.js";
import { type Msg, newId, nowIso, toErrorInfo } from "../message/index.js";
import { type ChatFinal, isBatchedStream, type ResponseFormat, type ToolChoice } from "../model/core.js";
import { type Approval, addRules, askKey, unofferedRules } from "../permission/index.js";
import { abortReason } from "./abort.js";
import { toolSchema } from "./acting.js";
import { BlockTracker } from "./block-tracker.js";
import { compressState } from "./compress-state.js";
import { limitImages } from "./compression.js";
import { ReplyStateError } from "./errors.js";
import { EventBatches, type EventStep } from "./event-batches.js";
import { buildModelInput } from "./model-input.js";
import {
  NATIVE_FINAL_HINT,
  nativeRetryHint,
  parseNativeAnswer,
  resolveStructuredMode,
  responseFormatFor,
} from "./native-structured-output.js";
import { openCalls } from "./open-calls.js";
import { checkAnswers, isInputEvent, pausedReply } from "./resume.js";
import { StreamingRun } from "./streaming-run.js";
import { STRUCTURED_OUTPUT_HINT, STRUCTURED_OUTPUT_TOOL } from "./structured-output.js";
import { countForTrigger } from "./token-count.js";
import { valueToParts } from "./tool-output.js";
import type { ReplyInput } from "./types.js";

/** An external result that is not taken: the result written instead. */
type Refusal = { state: "denied" | "error"; text: string };

/** On how many of the last iterations structured output is forced. */
const FORCE_STRUCTURED_AT = 1;

/**
 * One reply: reason (stream the model) → act (gate and run tool calls) → repeat, until an answer,
 * the structured output, the iteration limit, an interrupt, or a pause. Every change to the reply
 * Msg goes through an event folded with `applyEventInPlace`, so the stored Msg is exactly what a
 * client rebuilds from the stream.
 */
export class ReplyRun extends StreamingRun {
  /** The reply's events, one per `next()` (the deltas of a network read are handed over together). */
  run(input: ReplyInput): AsyncGenerator<AgentEvent> {
    return new EventBatches(this.steps(input));
  }

  private async *steps(input: ReplyInput): AsyncGenerator<EventStep> {
    this.guard?.start(input);
    try {
      if (isInputEvent(input)) {
        // A resumed reply keeps the structured-output mode it started with.
        this.setStructuredMode(this.state.replyContext?.structuredOutputMode ?? "tool");
        yield* this.resumeInput(input);
      } else this.start(input);
      yield* this.drain();
      if (this.msg.finishedReason !== undefined) {
        await this.save("reply_end");
        return;
      }
      await this.save(isInputEvent(input) ? "tool_result" : "reply_start");

      while (true) {
        if (this.options.signal?.aborted) {
          this.interrupt(abortReason(this.options.signal));
          yield* this.drain();
          return this.finish();
        }
        const open = openCalls(this.msg);
        if (open.length === 0 && this.pauseForNested()) {
          await this.save("pause");
          return;
        }
        if (open.length > 0) {
          const paused = yield* this.act(open);
          if (paused) {
            await this.save("pause");
            return;
          }
          if (this.options.signal?.aborted) continue;
          if (this.stopReason !== undefined) {
            this.stop();
            yield* this.drain();
            return this.finish();
          }
          if (this.structuredDone) {
            this.end("completed");
            yield* this.drain();
            return this.finish();
          }
          continue;
        }

        const reply = this.state.replyContext!;
        if (reply.iteration >= this.config.maxIters) {
          this.emit("EXCEED_MAX_ITERS", { maxIters: this.config.maxIters });
          this.end("exceed_max_iters");
          yield* this.drain();
          return this.finish();
        }
        reply.iteration += 1;
        if (!this.noMiddleware) {
          await this.mw.beforeReasoning(reply.iteration);
          if (this.stopReason !== undefined) this.stop();
          yield* this.drain();
          if (this.msg.finishedReason) return this.finish();
        }
        yield* this.compressIfNeeded(reply.iteration);

        // Reasoning, inline: this loop runs once per streamed delta.
        let final: ChatFinal | undefined;
        let withFormat = false;
        let failure: unknown;
        const blocks = new BlockTracker();
        const sink = this.sink;
        let model = this.config.model;
        let fallbackFrom: string | undefined;
        while (true) {
          this.emit(
            "MODEL_CALL_START",
            fallbackFrom ? { modelName: model.name, fallbackFrom } : { modelName: model.name },
          );
          yield* this.drain();
          try {
            const request = {
              model,
              messages: this.modelInput(),
              options: this.chatOptions(reply.iteration),
            };
            withFormat = request.options.responseFormat !== undefined;
            const stream = this.noMiddleware
              ? model.stream(request.messages, request.options)
              : this.mw.callModel(request);
            if (isBatchedStream(stream)) {
              // One await per network read: the deltas of a read are folded, then their events yielded.
              for await (const batch of stream.batches()) {
                const readAt = nowIso(); // one timestamp for the events of one network read
                for (let c = 0; c < batch.length; c++) {
                  const chunk = batch[c]!;
                  if (chunk.type === "final") final = chunk;
                  else this.onDelta(chunk, blocks, readAt);
                }
                const out = this.out;
                if (sink) for (let i = 0; i < out.length; i++) sink(out[i]!);
                else if (out.length === 1) yield out[0]!;
                else if (out.length > 1) yield out.slice();
                out.length = 0;
              }
            } else {
              for await (const chunk of stream) {
                if (chunk.type === "final") {
                  final = chunk; // the last chunk: read on so the stream (and any middleware) can finish
                  continue;
                }
                this.onDelta(chunk, blocks);
                const out = this.out;
                if (sink) for (let i = 0; i < out.length; i++) sink(out[i]!);
                else for (let i = 0; i < out.length; i++) yield out[i]!;
                out.length = 0;
              }
            }
            if (!final) throw new Error(`model "${model.name}" ended its stream without a final chunk`);
            break;
          } catch (error) {
            const aborted = this.options.signal?.aborted === true;
            const info = aborted
              ? { type: "aborted" as const, message: "interrupted" }
              : toErrorInfo(error, "upstream");
            this.emit("MODEL_CALL_END", {
              modelName: model.name,
              inputTokens: 0,
              outputTokens: 0,
              error: info,
            });
            const fallback = this.config.fallbackModel;
            if (!aborted && fallback && model !== fallback && !blocks.any()) {
              fallbackFrom = model.name;
              model = fallback;
              continue;
            }
            failure = aborted ? undefined : error;
            break;
          }
        }

        if (!final) {
          this.endOpenBlocks(blocks);
          if (failure !== undefined) {
            this.closeOpenCalls("error", "the model call failed before this tool call was complete");
            this.end("error", toErrorInfo(failure, "upstream"));
            yield* this.drain();
            return this.finish();
          }
          continue; // aborted: the top of the loop closes the reply as interrupted
        }
        this.onFinal(final, blocks);
        const usage = final.usage;
        const end: EventInit<"MODEL_CALL_END"> = {
          replyId: this.msg.id,
          modelName: final.model ?? model.name,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          stopReason: final.stopReason,
        };
        if (final.responseId !== undefined) end.responseId = final.responseId;
        if (usage.cacheReadTokens !== undefined) end.cacheReadTokens = usage.cacheReadTokens;
        if (usage.cacheWriteTokens !== undefined) end.cacheWriteTokens = usage.cacheWriteTokens;
        this.push(createEvent("MODEL_CALL_END", end));
        yield* this.drain();
        // A plain answer ends the reply right below, and that save ("reply_end") holds this one.
        if (!this.endsWithAnswer(final)) await this.save("model_call");
        if (!this.noMiddleware) {
          await this.mw.afterReasoning(this.msg);
          if (this.stopReason !== undefined) {
            this.stop();
            yield* this.drain();
            return this.finish();
          }
        }

        // The provider paused its own turn (a long server tool run): sending the reply back resumes it.
        if (final.continueTurn) continue;
        if (!final.content.some((block) => block.type === "tool_call" && block.executedBy !== "provider")) {
          if (this.nativeSchema && !this.structuredDone) {
            const retry = this.takeNativeAnswer(final, withFormat);
            yield* this.drain();
            if (retry) continue;
          }
          if (this.structuredTool && !this.structuredDone) {
            this.emit("HINT_BLOCK", { blockId: newId("blk"), text: STRUCTURED_OUTPUT_HINT });
            yield* this.drain();
            continue;
          }
          this.end("completed");
          yield* this.drain();
          return this.finish();
        }
      }
    } finally {
      this.guard?.end();
    }
  }

  /** Whether `final` ends the reply as it is: no calls to run, nothing to retry or hint, no middleware. */
  private endsWithAnswer(final: ChatFinal): boolean {
    if (!this.noMiddleware || final.continueTurn || this.nativeSchema || this.structuredTool) return false;
    return !final.content.some((block) => block.type === "tool_call" && block.executedBy !== "provider");
  }

  protected start(input: Msg | Msg[] | undefined): void {
    const reply = this.state.replyContext;
    if (reply?.waitingFor) {
      throw new ReplyStateError(
        `reply "${reply.replyId}" is waiting for ${reply.waitingFor === "user_confirm" ? "a confirmation" : "external results"}; answer it or send USER_INTERRUPT before a new message`,
      );
    }
    const schema = this.options.structuredOutput;
    // Resolved before anything changes: "native" on a model without it throws here.
    const mode = schema
      ? resolveStructuredMode(
          this.options.structuredOutputMode ?? "tool",
          this.config.fallbackModel ? [this.config.model, this.config.fallbackModel] : [this.config.model],
          this.config.toolkit.schemas().length > 0,
        )
      : undefined;
    const messages = input === undefined ? [] : Array.isArray(input) ? input : [input];
    if (mode) this.setStructuredMode(mode);
    this.state.context.push(...messages);
    const replyId = newId("reply");
    this.msg = {
      id: replyId,
      name: this.config.name,
      role: "assistant",
      content: [],
      metadata: {},
      createdAt: "",
    };
    const event = createEvent("REPLY_START", {
      replyId,
      sessionId: this.state.sessionId,
      name: this.config.name,
      role: "assistant",
    });
    this.msg.createdAt = event.createdAt;
    this.state.context.push(this.msg);
    this.state.replyContext = { replyId, iteration: 0 };
    if (schema) this.state.replyContext.structuredOutput = true;
    if (mode === "native") this.state.replyContext.structuredOutputMode = "native";
    this.push(event);
  }

  protected async resume(input: InputEvent): Promise<void> {
    this.msg = pausedReply(this.state, input);
    checkAnswers(this.msg, input);
    const reply = this.state.replyContext!;
    if (reply.structuredOutput && !this.options.structuredOutput) {
      throw new ReplyStateError(
        `reply "${reply.replyId}" asked for structured output: pass the same schema to resume it`,
      );
    }
    // Answers are checked and decided before anything changes: a bad rule is an error, not half an answer.
    let permission = this.state.permission;
    let approvals: Map<string, Approval> | undefined;
    let refusedResults: Map<string, Refusal> | undefined;
    if (input.type === "USER_CONFIRM_RESULT") {
      approvals = await this.approvalsOf(input);
      permission = addRules(
        permission,
        input.confirmResults.flatMap((answer) => (answer.confirmed ? (answer.rules ?? []) : [])),
      );
    } else if (input.type === "EXTERNAL_EXECUTION_RESULT") {
      refusedResults = await this.refusedResults(input);
    }
    delete reply.waitingFor;
    this.state.permission = permission;
    for (const [id, approval] of approvals ?? []) this.approvals.set(id, approval);
    const event = { ...input, replyId: this.msg.id } as AgentEvent;
    this.push(event);
    if (input.type === "USER_INTERRUPT") {
      this.interrupt(input.reason ?? "interrupted by the user");
      return;
    }
    if (input.type === "USER_CONFIRM_RESULT") {
      const refused = input.confirmResults.filter((answer) => !answer.confirmed);
      for (const answer of refused) {
        const call = this.findCall(answer.toolCall.id)!;
        this.writeResult(
          call,
          "denied",
          `The user refused this call${answer.reason ? `: ${answer.reason}` : "."}`,
        );
      }
      if (refused.length > 0 && openCalls(this.msg).length === 0) this.noteAllDenied();
      return;
    }
    for (const result of input.toolResults) {
      this.emit("TOOL_RESULT_START", { toolCallId: result.id, toolCallName: result.name });
      const refusal = refusedResults?.get(result.id);
      if (refusal !== undefined) {
        this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: result.id, delta: refusal.text });
        this.emit("TOOL_RESULT_END", { toolCallId: result.id, state: refusal.state });
        continue;
      }
      this.emitOutput(result.id, valueToParts(result.output));
      this.emit("TOOL_RESULT_END", {
        toolCallId: result.id,
        state: result.state === "running" ? "success" : result.state,
      });
    }
  }

  /**
   * Each confirmed answer as an approval for the gate, which decides the call again with it (see
   * `ActingRun.gate`). Throws, before anything changes, for an answer that wants to remember a rule
   * the ask did not offer. The ask answered is decided again for the call as it stands, before the
   * answer's edits and rules: it is what the person saw.
   */
  private async approvalsOf(input: UserConfirmResultEvent): Promise<Map<string, Approval>> {
    const approvals = new Map<string, Approval>();
    for (const answer of input.confirmResults) {
      if (!answer.confirmed) continue;
      const call = this.findCall(answer.toolCall.id)!;
      const edited = answer.toolCall.input !== call.input;
      const rules = answer.rules ?? [];
      const ask = edited || rules.length > 0 ? await this.currentDecision(call) : undefined;
      const problem = unofferedRules(rules, ask);
      if (problem !== undefined) {
        throw new ReplyStateError(
          `the answer to ${call.name} call "${call.id}" cannot be remembered: ${problem}`,
        );
      }
      approvals.set(call.id, edited ? { edited: true, answered: askKey(ask) } : { edited: false });
    }
    return approvals;
  }

  /**
   * External results whose call a deny now refuses (a rule added since it was submitted), or whose
   * permission check fails: the result is not taken, and the model reads why. By call id.
   */
  private async refusedResults(input: ExternalExecutionResultEvent): Promise<Map<string, Refusal>> {
    const refused = new Map<string, Refusal>();
    for (const result of input.toolResults) {
      const call = this.findCall(result.id)!;
      const tool = this.lookup(call.name);
      const parsed = tool ? this.quietlyParsed(call, tool) : undefined;
      if (!tool || !parsed) continue;
      const verdict = await this.decide(call, tool, parsed.value, { edited: false }).catch(
        (error: unknown) => ({ behavior: "failed" as const, reason: toErrorInfo(error).message }),
      );
      if (verdict.behavior === "deny") {
        refused.set(result.id, {
          state: "denied",
          text: `Permission denied: ${verdict.decision.reason}; the external result was not taken`,
        });
      } else if (verdict.behavior === "failed") {
        refused.set(result.id, {
          state: "error",
          text: `Error: the permission check failed (${verdict.reason}); the external result was not taken`,
        });
      }
    }
    return refused;
  }

  protected modelInput(): Msg[] {
    const prompt = this.noMiddleware
      ? this.config.systemPrompt
      : this.mw.systemPrompt(this.config.systemPrompt);
    const messages = buildModelInput(
      prompt,
      this.config.toolkit.groupNotes(),
      this.state.summary,
      this.state.context,
    );
    const maxImages = this.config.context.maxImages;
    return maxImages === undefined ? messages : limitImages(messages, maxImages);
  }

  /** Summarises the older context when the next input would pass the trigger (see compression.ts). */
  protected async *compressIfNeeded(iteration: number): AsyncGenerator<AgentEvent> {
    const { triggerRatio = 0.8, tokenCounter } = this.config.context;
    const model = this.config.context.summaryModel ?? this.config.model;
    const trigger = await countForTrigger(
      this.config.model,
      this.modelInput(),
      this.chatOptions(iteration).tools ?? [],
      this.config.model.contextSize * triggerRatio,
      { counter: tokenCounter, state: this.state, signal: this.options.signal },
    );
    if (!trigger.over) return;
    await compressState(this.state, this.config.model, model, this.config.context, {
      signal: this.options.signal,
      emit: (event) => this.mw.ctx.emit(event),
      trigger,
    });
    yield* this.drain();
  }

  protected chatOptions(iteration: number) {
    const tools = this.structuredTool
      ? [...this.config.toolkit.schemas(), toolSchema(this.structuredTool)]
      : this.config.toolkit.schemas();
    const options: {
      tools?: typeof tools;
      toolChoice?: ToolChoice;
      responseFormat?: ResponseFormat;
      signal?: AbortSignal;
    } = {};
    const forced = iteration > this.config.maxIters - FORCE_STRUCTURED_AT;
    if (this.nativeSchema) {
      // Native: the format goes with the tools where the model takes both; otherwise on a call
      // without tools once the model has answered (and on the last iteration, so it must answer).
      const alone = forced || this.nativeFinal;
      const together = this.config.model.nativeStructuredOutput === "with_tools" || tools.length === 0;
      if (!alone && tools.length > 0) options.tools = tools;
      if (alone || together) options.responseFormat = this.nativeFormat();
    } else if (tools.length > 0) options.tools = tools;
    if (this.structuredTool && forced) {
      options.toolChoice = { name: STRUCTURED_OUTPUT_TOOL };
    }
    if (this.options.signal) options.signal = this.options.signal;
    return options;
  }

  /** Native mode: the model answered on a call without the format, so the next call has it and no tools. */
  private nativeFinal = false;
  private nativeResponseFormat: ResponseFormat | undefined;

  private nativeFormat(): ResponseFormat {
    this.nativeResponseFormat ??= responseFormatFor(this.nativeSchema!);
    return this.nativeResponseFormat;
  }

  /**
   * Native mode, after a call that answered without tool calls; returns true when the model is asked
   * again. An answer to a call that carried the format is parsed and validated: it becomes the
   * structured output, or a hint naming the bad field and another try (as a schema violation is an
   * error result in tool mode). An answer to a call without the format (tools the model cannot
   * combine with it) is followed by a call that has it. A refusal or a content filter ends the reply
   * without an output (the agent never retries on those stop reasons; `stopReason` says why).
   */
  protected takeNativeAnswer(final: ChatFinal, withFormat: boolean): boolean {
    if (final.stopReason === "refusal" || final.stopReason === "content_filter") return false;
    if (!withFormat) {
      this.nativeFinal = true;
      this.emit("HINT_BLOCK", { blockId: newId("blk"), text: NATIVE_FINAL_HINT });
      return true;
    }
    const answer = parseNativeAnswer(this.nativeSchema!, final.content);
    if (answer.ok) {
      this.structuredValue = answer.value;
      this.structuredDone = true;
      return false;
    }
    const error =
      final.stopReason === "length"
        ? `it was cut off at the output token limit (${answer.error})`
        : answer.error;
    this.emit("HINT_BLOCK", { blockId: newId("blk"), text: nativeRetryHint(error) });
    return true;
  }

  /** Ends the reply on a stop request: calls not yet run are closed, then REQUEST_STOP and REPLY_END. */
  protected stop(): void {
    const reason = this.stopReason ?? "stop requested";
    this.closeOpenCalls("interrupted", `[not run: the reply was stopped: ${reason}]`);
    this.emit("REQUEST_STOP", { reason });
    this.end("stopped");
  }

  protected interrupt(reason: string): void {
    this.closeOpenCalls("interrupted", `[interrupted: ${reason}] This call did not run to completion.`);
    if (!this.msg.finishedReason) this.end("interrupted");
  }

  protected async finish(): Promise<void> {
    delete this.state.replyContext;
    await this.save("reply_end");
  }
}
