import type { z } from "zod";
import {
  type AgentEvent,
  type AgentEventType,
  applyEventInPlace,
  createEvent,
  type EventInit,
  type InputEvent,
  type TextBlockDeltaEvent,
} from "../event/index.js";
import {
  type ErrorInfo,
  type FinishReason,
  type Msg,
  newId,
  nowIso,
  type TextBlock,
  type ToolCallBlock,
  toErrorInfo,
} from "../message/index.js";
import {
  type ChatChunk,
  type ChatFinal,
  type ChatModel,
  isBatchedStream,
  type ToolChoice,
} from "../model/core.js";
import { addRules, type PermissionDecision } from "../permission/index.js";
import { type AgentState, replaceUnstorableChars } from "../state/index.js";
import { type Tool, ToolError, ToolInputError, type Toolkit } from "../tool/index.js";
import { compressState } from "./compress-state.js";
import { type ContextOptions, limitImages, overTrigger } from "./compression.js";
import { ReplyStateError } from "./errors.js";
import type { Middleware } from "./middleware.js";
import { MiddlewareRunner } from "./middleware-runner.js";
import { buildModelInput } from "./model-input.js";
import { lastStepCalls, openCalls, resultsOf, splitBatches } from "./open-calls.js";
import { checkAnswers, isInputEvent, pausedReply } from "./resume.js";
import { STRUCTURED_OUTPUT_HINT, STRUCTURED_OUTPUT_TOOL, structuredOutputTool } from "./structured-output.js";
import { chunkToPart, isAsyncIterable, type OutputPart, valueToParts } from "./tool-output.js";
import type { AgentOptions, CheckpointReason, PermissionDecider, ReplyInput, ReplyOptions } from "./types.js";

/** What the reply run needs from its agent. */
export interface RunConfig {
  name: string;
  systemPrompt: string;
  model: ChatModel;
  fallbackModel?: ChatModel;
  toolkit: Toolkit;
  maxIters: number;
  decide: PermissionDecider;
  checkpoint?: AgentOptions["checkpoint"];
  middlewares: readonly Middleware[];
  context: ContextOptions;
}

type Ask = { call: ToolCallBlock; decision: PermissionDecision };
/** A block being streamed; `text` is the reply's text block itself, for the fast path. */
type OpenBlock = { kind: "text" | "thinking" | "tool_call" | "data"; id: string; text?: TextBlock };

/** On how many of the last iterations structured output is forced. */
const FORCE_STRUCTURED_AT = 1;

/**
 * One reply: reason (stream the model) → act (gate and run tool calls) → repeat, until an answer,
 * the structured output, the iteration limit, an interrupt, or a pause. Every change to the reply
 * Msg goes through an event folded with `applyEventInPlace`, so the stored Msg is exactly what a
 * client rebuilds from the stream.
 */
export class ReplyRun {
  private readonly out: AgentEvent[] = [];
  private wake: (() => void) | undefined;
  private msg!: Msg;
  private stopReason: string | undefined;
  private readonly structuredTool: Tool | undefined;
  private structuredValue: unknown;
  private structuredDone = false;
  private readonly mw: MiddlewareRunner;

  constructor(
    private readonly config: RunConfig,
    private readonly state: AgentState,
    private readonly options: ReplyOptions<z.ZodType | undefined>,
    /** Called when the run starts (may throw: nothing has changed yet) and when it ends, however it ends. */
    private readonly guard?: { start(input: ReplyInput): void; end(): void },
  ) {
    this.structuredTool = options.structuredOutput
      ? structuredOutputTool(options.structuredOutput)
      : undefined;
    this.mw = new MiddlewareRunner(
      config.middlewares,
      {
        state,
        agentName: config.name,
        replyId: () => this.msg?.id ?? "",
        emit: (event) => {
          if (!this.msg) throw new ReplyStateError("a middleware emitted an event before the reply started");
          this.push(
            createEvent(event.type, { ...event, replyId: this.msg.id } as EventInit<typeof event.type>),
          );
        },
        requestStop: (reason) => {
          this.stopReason ??= reason;
        },
      },
      (request) => config.decide(request.tool, request.input, request.permission),
    );
  }

  /** The middleware context of this reply (for the reply-level hooks the Agent runs). */
  get middlewareRunner(): MiddlewareRunner {
    return this.mw;
  }

  /** The assistant Msg of this reply (after `run` has started). */
  get reply(): Msg {
    return this.msg;
  }

  async *run(input: ReplyInput): AsyncGenerator<AgentEvent> {
    this.guard?.start(input);
    try {
      if (isInputEvent(input)) this.resume(input);
      else this.start(input);
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
        if (!this.mw.empty) {
          await this.mw.beforeReasoning(reply.iteration);
          if (this.stopReason !== undefined) this.stop();
          yield* this.drain();
          if (this.msg.finishedReason) return this.finish();
        }
        yield* this.compressIfNeeded(reply.iteration);

        // Reasoning, inline: this loop runs once per streamed delta.
        let final: ChatFinal | undefined;
        let failure: unknown;
        const blocks = new BlockTracker();
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
            const stream = this.mw.empty
              ? model.stream(request.messages, request.options)
              : this.mw.callModel(request);
            if (isBatchedStream(stream)) {
              // One await per network read: the deltas of a read are folded, then their events yielded.
              for await (const batch of stream.batches()) {
                for (let c = 0; c < batch.length; c++) {
                  const chunk = batch[c]!;
                  if (chunk.type === "final") final = chunk;
                  else this.onDelta(chunk, blocks);
                }
                const out = this.out;
                for (let i = 0; i < out.length; i++) yield out[i]!;
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
                for (let i = 0; i < out.length; i++) yield out[i]!;
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
        };
        if (usage.cacheReadTokens !== undefined) end.cacheReadTokens = usage.cacheReadTokens;
        if (usage.cacheWriteTokens !== undefined) end.cacheWriteTokens = usage.cacheWriteTokens;
        this.push(createEvent("MODEL_CALL_END", end));
        yield* this.drain();
        await this.save("model_call");
        if (!this.mw.empty) {
          await this.mw.afterReasoning(this.msg);
          if (this.stopReason !== undefined) {
            this.stop();
            yield* this.drain();
            return this.finish();
          }
        }

        if (!final.content.some((block) => block.type === "tool_call")) {
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

  // ---- starting and resuming ----

  private start(input: Msg | Msg[] | undefined): void {
    const reply = this.state.replyContext;
    if (reply?.waitingFor) {
      throw new ReplyStateError(
        `reply "${reply.replyId}" is waiting for ${reply.waitingFor === "user_confirm" ? "a confirmation" : "external results"}; answer it or send USER_INTERRUPT before a new message`,
      );
    }
    const messages = input === undefined ? [] : Array.isArray(input) ? input : [input];
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
    if (this.structuredTool) this.state.replyContext.structuredOutput = true;
    this.push(event);
  }

  private resume(input: InputEvent): void {
    this.msg = pausedReply(this.state, input);
    checkAnswers(this.msg, input);
    const reply = this.state.replyContext!;
    if (reply.structuredOutput && !this.structuredTool) {
      throw new ReplyStateError(
        `reply "${reply.replyId}" asked for structured output: pass the same schema to resume it`,
      );
    }
    // Rules the user accepted are parsed before anything changes: a bad rule is an error, not half an answer.
    const permission =
      input.type === "USER_CONFIRM_RESULT"
        ? addRules(
            this.state.permission,
            input.confirmResults.flatMap((answer) => (answer.confirmed ? (answer.rules ?? []) : [])),
          )
        : this.state.permission;
    delete reply.waitingFor;
    this.state.permission = permission;
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
      this.emitOutput(result.id, valueToParts(result.output));
      this.emit("TOOL_RESULT_END", {
        toolCallId: result.id,
        state: result.state === "running" ? "success" : result.state,
      });
    }
  }

  // ---- reasoning ----

  private modelInput(): Msg[] {
    const prompt = this.mw.empty ? this.config.systemPrompt : this.mw.systemPrompt(this.config.systemPrompt);
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
  private async *compressIfNeeded(iteration: number): AsyncGenerator<AgentEvent> {
    const { triggerRatio = 0.8 } = this.config.context;
    const model = this.config.context.summaryModel ?? this.config.model;
    if (
      !overTrigger(
        this.config.model,
        this.modelInput(),
        this.chatOptions(iteration).tools ?? [],
        triggerRatio,
      )
    ) {
      return;
    }
    await compressState(this.state, this.config.model, model, this.config.context, {
      signal: this.options.signal,
      emit: (event) => this.mw.ctx.emit(event),
    });
    yield* this.drain();
  }

  private chatOptions(iteration: number) {
    const tools = this.structuredTool
      ? [...this.config.toolkit.schemas(), toolSchema(this.structuredTool)]
      : this.config.toolkit.schemas();
    const options: { tools?: typeof tools; toolChoice?: ToolChoice; signal?: AbortSignal } = {};
    if (tools.length > 0) options.tools = tools;
    if (this.structuredTool && iteration > this.config.maxIters - FORCE_STRUCTURED_AT) {
      options.toolChoice = { name: STRUCTURED_OUTPUT_TOOL };
    }
    if (this.options.signal) options.signal = this.options.signal;
    return options;
  }

  private onDelta(chunk: Exclude<ChatChunk, ChatFinal>, blocks: BlockTracker): void {
    let open = blocks.find(chunk.blockId);
    if (open === undefined) {
      const id = chunk.type === "tool_call" ? chunk.blockId : newId("blk");
      open = { kind: chunk.type, id };
      blocks.open(chunk.blockId, open);
      if (chunk.type === "text") {
        this.emit("TEXT_BLOCK_START", { blockId: id });
        open.text = this.msg.content[this.msg.content.length - 1] as TextBlock;
      } else if (chunk.type === "thinking") this.emit("THINKING_BLOCK_START", { blockId: id });
      else if (chunk.type === "data")
        this.emit("DATA_BLOCK_START", { blockId: id, mediaType: chunk.mediaType });
      else this.emit("TOOL_CALL_START", { toolCallId: id, toolCallName: chunk.name ?? "" });
    }
    if (chunk.delta === "") return;
    const id = open.id;
    if (open.text !== undefined) {
      // The hot path: one event literal, folded by appending to the block it started (what the reducer does).
      const event: TextBlockDeltaEvent = {
        id: newId("evt"),
        createdAt: nowIso(),
        type: "TEXT_BLOCK_DELTA",
        replyId: this.msg.id,
        blockId: id,
        delta: chunk.delta,
      };
      if (this.mw.watchesEvents) this.mw.onEvent(event);
      open.text.text += chunk.delta;
      this.out.push(event);
    } else if (chunk.type === "thinking")
      this.emit("THINKING_BLOCK_DELTA", { blockId: id, delta: chunk.delta });
    else if (chunk.type === "data") this.emit("DATA_BLOCK_DELTA", { blockId: id, data: chunk.delta });
    else this.emit("TOOL_CALL_DELTA", { toolCallId: id, delta: chunk.delta });
  }

  /** Ends every streamed block (with provider extras) and adds the blocks that were never streamed. */
  private onFinal(final: ChatFinal, blocks: BlockTracker): void {
    for (const block of final.content) {
      if (blocks.find(block.id) === undefined) this.onDelta(fullDelta(block), blocks);
      const id = blocks.find(block.id)!.id;
      blocks.close(block.id);
      if (block.type === "thinking") {
        const end: EventInit<"THINKING_BLOCK_END"> = { replyId: this.msg.id, blockId: id };
        if (block.signature !== undefined) end.signature = block.signature;
        if (block.redactedData !== undefined) end.redactedData = block.redactedData;
        if (block.itemId !== undefined) end.itemId = block.itemId;
        if (block.provider !== undefined) end.provider = block.provider;
        this.push(createEvent("THINKING_BLOCK_END", end));
      } else this.endBlock({ kind: block.type, id });
    }
    this.endOpenBlocks(blocks);
  }

  private endOpenBlocks(blocks: BlockTracker): void {
    for (const block of blocks.drainOpen()) this.endBlock(block);
  }

  private endBlock(block: OpenBlock): void {
    if (block.kind === "text") this.emit("TEXT_BLOCK_END", { blockId: block.id });
    else if (block.kind === "thinking") this.emit("THINKING_BLOCK_END", { blockId: block.id });
    else if (block.kind === "data") this.emit("DATA_BLOCK_END", { blockId: block.id });
    else this.emit("TOOL_CALL_END", { toolCallId: block.id });
  }

  // ---- acting ----

  private lookup(name: string): Tool | undefined {
    if (this.structuredTool && name === STRUCTURED_OUTPUT_TOOL) return this.structuredTool;
    return this.config.toolkit.isActive(name) ? this.config.toolkit.get(name) : undefined;
  }

  /** Gates and runs open calls batch by batch; returns true when the reply paused. */
  private async *act(open: ToolCallBlock[]): AsyncGenerator<AgentEvent, boolean> {
    const batches = splitBatches(open, (call) => this.lookup(call.name)?.concurrencySafe === true);
    for (const batch of batches) {
      const run: Array<{ call: ToolCallBlock; tool: Tool }> = [];
      const asks: Ask[] = [];
      const external: ToolCallBlock[] = [];
      for (const call of batch.calls) {
        if (call.state === "asking" || call.state === "submitted") continue;
        const tool = call.state === "allowed" ? this.lookup(call.name) : await this.gate(call, asks);
        if (!tool) continue;
        if (tool.external) external.push(call);
        else run.push({ call, tool });
      }
      if (external.length > 0)
        this.emit("REQUIRE_EXTERNAL_EXECUTION", { toolCalls: external.map(snapshotCall) });
      yield* this.drain();
      if (run.length > 0) yield* this.runTools(run, batch.parallel);
      if (this.options.signal?.aborted || this.stopReason !== undefined) return false;

      const waiting = batch.calls.filter((call) => call.state === "asking" || call.state === "submitted");
      const asking = waiting.filter(
        (call) => call.state === "asking" || asks.some((a) => a.call.id === call.id),
      );
      for (const call of asking) {
        if (!asks.some((a) => a.call.id === call.id))
          asks.push({ call, decision: { behavior: "ask", reason: "" } });
      }
      if (asks.length > 0 || waiting.length > 0) {
        if (asks.length > 0) {
          this.emit("REQUIRE_USER_CONFIRM", {
            toolCalls: asks.map(({ call, decision }) => {
              const entry: ToolCallBlock & { reason?: string; suggestedRules?: string[] } =
                snapshotCall(call);
              if (decision.reason) entry.reason = decision.reason;
              if (decision.suggestedRules?.length) entry.suggestedRules = decision.suggestedRules;
              return entry;
            }),
          });
        }
        const reply = this.state.replyContext!;
        reply.waitingFor = openCalls(this.msg).some((c) => c.state === "asking")
          ? "user_confirm"
          : "external_execution";
        yield* this.drain();
        return true;
      }
    }
    this.noteAllDenied();
    yield* this.drain();
    return false;
  }

  /** Emits ALL_TOOLS_DENIED when every call of the last reasoning step was denied. */
  private noteAllDenied(): void {
    const calls = lastStepCalls(this.msg);
    if (calls.length === 0) return;
    const results = resultsOf(this.msg, new Set(calls.map((call) => call.id)));
    if (results.length === calls.length && results.every((result) => result.state === "denied")) {
      this.emit("ALL_TOOLS_DENIED", { deniedToolCalls: calls.map(snapshotCall) });
    }
  }

  /**
   * Validates a pending call and asks the permission engine. Returns the tool when it may run (or be
   * submitted); writes an error or denied result, or records an ask, otherwise.
   */
  private async gate(call: ToolCallBlock, asks: Ask[]): Promise<Tool | undefined> {
    const tool = this.lookup(call.name);
    if (!tool) {
      const names = [
        ...this.config.toolkit.schemas().map((s) => s.name),
        ...(this.structuredTool ? [STRUCTURED_OUTPUT_TOOL] : []),
      ];
      this.writeResult(
        call,
        "error",
        `Error: there is no tool named "${call.name}". Available tools: ${names.join(", ") || "none"}.`,
      );
      return undefined;
    }
    const parsed = this.parseArguments(call, tool);
    if (parsed === PARSE_FAILED) return undefined;
    if (tool === this.structuredTool) return tool;
    let decision: PermissionDecision;
    try {
      decision = this.mw.empty
        ? await this.config.decide(tool, parsed, this.state.permission)
        : await this.mw.decide({ tool, input: parsed, permission: this.state.permission });
    } catch (error) {
      this.writeResult(call, "error", `Error: the permission check failed: ${toErrorInfo(error).message}`);
      return undefined;
    }
    if (decision.behavior === "deny") {
      this.writeResult(call, "denied", `Permission denied: ${decision.reason}`);
      return undefined;
    }
    if (decision.behavior === "ask") {
      asks.push({ call, decision });
      return undefined;
    }
    return tool;
  }

  private parseArguments(call: ToolCallBlock, tool: Tool): unknown {
    let args: unknown;
    try {
      args = call.input.trim() === "" ? {} : JSON.parse(call.input);
    } catch (error) {
      this.writeResult(
        call,
        "error",
        `Error: the arguments are not valid JSON (${(error as Error).message}). Send a JSON object.`,
      );
      return PARSE_FAILED;
    }
    try {
      return tool.parse(args);
    } catch (error) {
      const detail = error instanceof ToolInputError ? error.message : toErrorInfo(error).message;
      this.writeResult(call, "error", `Error: invalid arguments for ${tool.name}: ${detail}`);
      return PARSE_FAILED;
    }
  }

  private async *runTools(
    calls: Array<{ call: ToolCallBlock; tool: Tool }>,
    parallel: boolean,
  ): AsyncGenerator<AgentEvent> {
    if (!parallel) {
      for (const { call, tool } of calls) {
        if (this.options.signal?.aborted || this.stopReason !== undefined) return;
        yield* this.waitFor(this.runTool(call, tool));
      }
      return;
    }
    yield* this.waitFor(Promise.all(calls.map(({ call, tool }) => this.runTool(call, tool))));
  }

  /** Yields events as they are emitted until `work` settles. */
  private async *waitFor(work: Promise<unknown>): AsyncGenerator<AgentEvent> {
    let settled = false;
    const done = work.then(
      () => {
        settled = true;
        this.notify();
      },
      (error: unknown) => {
        settled = true;
        this.notify();
        throw error;
      },
    );
    while (true) {
      yield* this.drain();
      if (settled) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    await done;
    yield* this.drain();
  }

  private async runTool(call: ToolCallBlock, tool: Tool): Promise<void> {
    const parsed = this.parseArguments(call, tool);
    if (parsed === PARSE_FAILED) return;
    const signal = this.options.signal ?? new AbortController().signal;
    this.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
    const ctx = {
      signal,
      sessionId: this.state.sessionId,
      replyId: this.msg.id,
      toolCallId: call.id,
      state: this.state.toolContext,
      permission: this.state.permission,
      requestStop: (reason?: string) => {
        this.stopReason = reason ?? `requested by ${tool.name}`;
      },
    };
    try {
      const value = this.mw.empty
        ? tool.call(parsed, ctx)
        : await untilAborted(this.mw.callTool({ call, tool, input: parsed, ctx }), signal);
      if (isAsyncIterable(value)) {
        const chunks = value[Symbol.asyncIterator]();
        try {
          while (!signal.aborted) {
            const next = await untilAborted(chunks.next(), signal);
            if (next.done) break;
            this.emitOutput(call.id, [chunkToPart(next.value)]);
          }
        } finally {
          if (signal.aborted) void chunks.return?.()?.catch(() => {});
        }
      } else {
        this.emitOutput(call.id, valueToParts(await untilAborted(value, signal)));
      }
      if (signal.aborted) {
        this.emitOutput(call.id, [{ kind: "text", text: `\n[interrupted: ${abortReason(signal)}]` }]);
        this.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "interrupted" });
        return;
      }
      if (tool === this.structuredTool) {
        this.structuredValue = parsed;
        this.structuredDone = true;
      }
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "success" });
    } catch (error) {
      const state = signal.aborted ? "interrupted" : "error";
      if (!signal.aborted && ToolError.isInstance(error) && error.output !== undefined) {
        this.emitOutput(call.id, valueToParts(error.output));
      } else {
        const message = signal.aborted
          ? `[interrupted: ${abortReason(signal)}]`
          : `Error: ${toErrorInfo(error).message}`;
        this.emitOutput(call.id, [{ kind: "text", text: message }]);
      }
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
    }
  }

  private emitOutput(toolCallId: string, parts: OutputPart[]): void {
    for (const part of parts) {
      if (part.kind === "text") {
        // Text a store cannot hold (NUL, lone surrogates) is replaced here, so the event and the state agree.
        if (part.text !== "") {
          this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId, delta: replaceUnstorableChars(part.text) });
        }
        continue;
      }
      const { source, id, name } = part.block;
      const init: EventInit<"TOOL_RESULT_DATA_DELTA"> = {
        replyId: this.msg.id,
        toolCallId,
        blockId: id,
        mediaType: source.mediaType ?? "application/octet-stream",
      };
      if (source.type === "base64") init.data = source.data;
      else init.url = source.url;
      if (name !== undefined) init.name = name;
      this.push(createEvent("TOOL_RESULT_DATA_DELTA", init));
    }
  }

  /** A whole result written at once (errors, denials, interruptions). */
  private writeResult(call: ToolCallBlock, state: "error" | "denied" | "interrupted", text: string): void {
    this.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
    this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: call.id, delta: text });
    this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
  }

  private findCall(id: string): ToolCallBlock | undefined {
    return this.msg.content.find((b): b is ToolCallBlock => b.type === "tool_call" && b.id === id);
  }

  // ---- ending ----

  private closeOpenCalls(state: "error" | "interrupted", text: string): void {
    for (const call of openCalls(this.msg)) this.writeResult(call, state, text);
  }

  /** Ends the reply on a stop request: calls not yet run are closed, then REQUEST_STOP and REPLY_END. */
  private stop(): void {
    const reason = this.stopReason ?? "stop requested";
    this.closeOpenCalls("interrupted", `[not run: the reply was stopped: ${reason}]`);
    this.emit("REQUEST_STOP", { reason });
    this.end("stopped");
  }

  private interrupt(reason: string): void {
    this.closeOpenCalls("interrupted", `[interrupted: ${reason}] This call did not run to completion.`);
    if (!this.msg.finishedReason) this.end("interrupted");
  }

  private end(finishedReason: FinishReason, error?: ErrorInfo): void {
    const init: EventInit<"REPLY_END"> = { replyId: this.msg.id, finishedReason };
    if (error) init.error = error;
    if (this.structuredDone) init.structuredOutput = this.structuredValue;
    this.push(createEvent("REPLY_END", init));
  }

  private async finish(): Promise<void> {
    delete this.state.replyContext;
    await this.save("reply_end");
  }

  private async save(reason: CheckpointReason): Promise<void> {
    const checkpoint = this.options.checkpoint ?? this.config.checkpoint;
    if (checkpoint) await checkpoint(this.state, reason);
  }

  // ---- emitting ----

  private emit<T extends AgentEventType>(type: T, init: Omit<EventInit<T>, "replyId">): void {
    this.push(createEvent(type, { ...init, replyId: this.msg.id } as EventInit<T>));
  }

  private push(event: AgentEvent): void {
    if (this.mw.watchesEvents) this.mw.onEvent(event);
    applyEventInPlace(this.msg, event);
    this.out.push(event);
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake();
    }
  }

  /** Yields the buffered events; saves a checkpoint after each finished tool result. */
  private async *drain(): AsyncGenerator<AgentEvent> {
    const out = this.out;
    let i = 0;
    while (i < out.length) {
      const event = out[i]!;
      i += 1;
      yield event;
      if (event.type === "TOOL_RESULT_END") await this.save("tool_result");
    }
    out.length = 0;
  }
}

const PARSE_FAILED = Symbol("parse failed");

function toolSchema(tool: Tool) {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

/** A copy of a call as it stands now, for an event payload. */
function snapshotCall(call: ToolCallBlock): ToolCallBlock {
  return { type: "tool_call", id: call.id, name: call.name, input: call.input, state: call.state };
}

function fullDelta(block: ChatFinal["content"][number]): Exclude<ChatChunk, ChatFinal> {
  switch (block.type) {
    case "text":
      return { type: "text", blockId: block.id, delta: block.text };
    case "thinking":
      return { type: "thinking", blockId: block.id, delta: block.thinking };
    case "tool_call":
      return { type: "tool_call", blockId: block.id, name: block.name, delta: block.input };
    case "data":
      return {
        type: "data",
        blockId: block.id,
        mediaType: block.source.mediaType ?? "application/octet-stream",
        delta: block.source.type === "base64" ? block.source.data : "",
      };
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== "AbortError") return reason.message;
  if (typeof reason === "string") return reason;
  return "interrupted";
}

/** Resolves with `value`, or rejects as soon as `signal` aborts (for tools that ignore the signal). */
function untilAborted<T>(value: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (!(value instanceof Promise)) return Promise.resolve(value);
  if (signal.aborted) return Promise.reject(new Error(abortReason(signal)));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error(abortReason(signal)));
    signal.addEventListener("abort", onAbort, { once: true });
    value.then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Maps provider block ids to reply block ids and remembers which blocks are still open. */
class BlockTracker {
  private readonly ids = new Map<string, OpenBlock>();
  private readonly openOrder: OpenBlock[] = [];
  private lastKey: string | undefined;
  private lastBlock: OpenBlock | undefined;

  find(key: string): OpenBlock | undefined {
    if (key === this.lastKey) return this.lastBlock;
    const block = this.ids.get(key);
    if (block) {
      this.lastKey = key;
      this.lastBlock = block;
    }
    return block;
  }

  open(key: string, block: OpenBlock): void {
    this.ids.set(key, block);
    this.openOrder.push(block);
    this.lastKey = key;
    this.lastBlock = block;
  }

  close(key: string): void {
    const block = this.ids.get(key);
    const index = block ? this.openOrder.indexOf(block) : -1;
    if (index >= 0) this.openOrder.splice(index, 1);
  }

  any(): boolean {
    return this.ids.size > 0;
  }

  drainOpen(): OpenBlock[] {
    return this.openOrder.splice(0, this.openOrder.length);
  }
}
