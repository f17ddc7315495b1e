import type { z } from "zod";
import type { ReplyOptions } from "../agent/index.js";
import {
  type AgentEvent,
  type AgentEventType,
  applyEventInPlace,
  createEvent,
  type EventInit,
  type InputEvent,
} from "../event/index.js";
import { type ErrorInfo, type FinishReason, type Msg, newId, userMsg } from "../message/index.js";
import type { AgentState, WaitingFor } from "../state/index.js";
import { type ToolContext, ToolError } from "../tool/index.js";
import type { AgentLike } from "./agent-like.js";
import { finalText } from "./final-text.js";
import { type NestedOutcome, runNested } from "./run-nested.js";
import { subState } from "./sub-agent-tool.js";

/** One step of an orchestrated reply: a participant's run, shown as a tool call named after it. */
export interface StepOptions {
  structuredOutput?: z.ZodType;
  /** Keep the participant's session for the next step with the same key (default: a fresh one per step). */
  keep?: string;
}

/** The result of a step: the participant's reply, or a pause (the whole reply pauses). */
export type StepOutcome = NestedOutcome;

/**
 * The reply of a pipeline that is not a model loop (GoalPipeline): it emits the same events as an
 * agent's reply, its steps are tool calls named after the participant whose run streams nested
 * inside them, and it pauses and resumes like an agent's reply (the state holds the pause).
 */
export class OrchestratedReply {
  readonly msg: Msg;
  private readonly out: AgentEvent[] = [];
  private wake: (() => void) | undefined;

  private constructor(
    readonly name: string,
    readonly state: AgentState,
    private readonly options: ReplyOptions<z.ZodType | undefined>,
    msg: Msg,
  ) {
    this.msg = msg;
  }

  /** Starts a new reply: the input joins the context, REPLY_START goes out. */
  static start(name: string, state: AgentState, input: Msg[], options: ReplyOptions<z.ZodType | undefined>) {
    if (state.replyContext?.waitingFor) {
      throw new ToolError(`"${name}" is waiting for an answer; send it (or USER_INTERRUPT) first`);
    }
    state.context.push(...input);
    const replyId = newId("reply");
    const msg: Msg = { id: replyId, name, role: "assistant", content: [], metadata: {}, createdAt: "" };
    const run = new OrchestratedReply(name, state, options, msg);
    const event = createEvent("REPLY_START", {
      replyId,
      sessionId: state.sessionId,
      name,
      role: "assistant",
    });
    msg.createdAt = event.createdAt;
    state.context.push(msg);
    state.replyContext = { replyId, iteration: 0 };
    run.push(event);
    return run;
  }

  /** Takes up the paused reply an answer is for; throws before anything changes when there is none. */
  static resume(
    name: string,
    state: AgentState,
    input: InputEvent,
    options: ReplyOptions<z.ZodType | undefined>,
  ) {
    const reply = state.replyContext;
    const msg = state.context.at(-1);
    if (!reply?.waitingFor || !msg || msg.id !== reply.replyId) {
      throw new ToolError(`${input.type}: "${name}" has no paused reply in session "${state.sessionId}"`);
    }
    const own = input.replyId === undefined || input.replyId === reply.replyId;
    if (!own && !reply.suspended?.[input.replyId]) {
      throw new ToolError(`${input.type} is for reply "${input.replyId}", which "${name}" is not waiting on`);
    }
    delete reply.waitingFor;
    return new OrchestratedReply(name, state, options, msg);
  }

  get replyId(): string {
    return this.msg.id;
  }

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  emit<T extends AgentEventType>(type: T, init: Omit<EventInit<T>, "replyId">): void {
    this.push(createEvent(type, { ...init, replyId: this.msg.id } as EventInit<T>));
  }

  /** A text block of this reply. */
  say(text: string): void {
    const blockId = newId("blk");
    this.emit("TEXT_BLOCK_START", { blockId });
    this.emit("TEXT_BLOCK_DELTA", { blockId, delta: text });
    this.emit("TEXT_BLOCK_END", { blockId });
  }

  /** Runs `agent` on `prompt` as a step (a tool call named after it) and streams it; see `continueStep`. */
  async *step(
    agent: AgentLike,
    prompt: string,
    options: StepOptions = {},
  ): AsyncGenerator<AgentEvent, StepOutcome> {
    const toolCallId = newId("call");
    this.emit("TOOL_CALL_START", { toolCallId, toolCallName: agent.name });
    this.emit("TOOL_CALL_DELTA", { toolCallId, delta: JSON.stringify({ prompt }) });
    this.emit("TOOL_CALL_END", { toolCallId });
    this.emit("TOOL_RESULT_START", { toolCallId, toolCallName: agent.name });
    return yield* this.runStep(agent, toolCallId, prompt, undefined, options);
  }

  /** Continues the step waiting on the nested run `input` answers (or the only waiting step, for an interrupt). */
  async *continueStep(
    agent: (name: string) => AgentLike,
    input: InputEvent,
    options: (name: string) => StepOptions,
  ): AsyncGenerator<AgentEvent, StepOutcome> {
    const reply = this.state.replyContext!;
    const suspended = reply.suspended ?? {};
    const entry =
      input.replyId !== undefined && suspended[input.replyId]
        ? { replyId: input.replyId, ...suspended[input.replyId]! }
        : Object.entries(suspended).map(([replyId, e]) => ({ replyId, ...e }))[0];
    if (!entry) throw new ToolError(`"${this.name}" has no step waiting on an answer`);
    delete reply.suspended;
    const call = this.msg.content.find((b) => b.type === "tool_call" && b.id === entry.toolCallId);
    if (call?.type !== "tool_call") throw new ToolError(`step "${entry.toolCallId}" is gone from the reply`);
    const nested = {
      ...input,
      replyId: input.replyId === this.msg.id || !input.replyId ? entry.replyId : input.replyId,
    };
    return yield* this.runStep(agent(call.name), call.id, "", nested, options(call.name));
  }

  private async *runStep(
    agent: AgentLike,
    toolCallId: string,
    prompt: string,
    resume: InputEvent | undefined,
    options: StepOptions,
  ): AsyncGenerator<AgentEvent, StepOutcome> {
    let pause: { replyIds: string[]; waitingFor: WaitingFor } | undefined;
    const ctx: ToolContext = {
      signal: this.options.signal ?? new AbortController().signal,
      sessionId: this.state.sessionId,
      replyId: this.msg.id,
      toolCallId,
      state: this.state.toolContext,
      permission: this.state.permission,
      requestStop: () => {},
      source: this.options.source ?? this.name,
      emit: (event) => this.push(event),
      suspend: (p) => {
        pause = p;
      },
    };
    if (resume) ctx.resume = resume;
    let outcome: StepOutcome | undefined;
    let failure: unknown;
    const work = runNested(agent, userMsg(prompt || "(continue)"), ctx, {
      name: agent.name,
      ...(options.keep ? { key: options.keep, keep: true } : {}),
      ...(options.structuredOutput ? { structuredOutput: options.structuredOutput } : {}),
      newState: () => subState(agent, undefined, ctx),
    }).then(
      (result) => {
        outcome = result;
      },
      (error: unknown) => {
        failure = error ?? new Error("the step failed");
      },
    );
    yield* this.until(work);
    if (failure !== undefined) {
      this.emit("TOOL_RESULT_TEXT_DELTA", {
        toolCallId,
        delta: `Error: ${(failure as Error).message ?? failure}`,
      });
      this.emit("TOOL_RESULT_END", { toolCallId, state: "error" });
      yield* this.drain();
      throw failure;
    }
    if (pause) {
      const reply = this.state.replyContext!;
      reply.suspended = Object.fromEntries(
        pause.replyIds.map((id) => [id, { toolCallId, waitingFor: pause!.waitingFor }]),
      );
      reply.waitingFor = pause.waitingFor;
      await this.save("pause");
      return { paused: true };
    }
    const done = outcome as Extract<StepOutcome, { paused: false }>;
    const reply = done.reply;
    const value = reply.structuredOutput ?? finalText(reply);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (text) this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId, delta: text });
    const interrupted = this.options.signal?.aborted || reply.finishedReason === "interrupted";
    this.emit("TOOL_RESULT_END", {
      toolCallId,
      state: interrupted ? "interrupted" : reply.finishedReason === "error" ? "error" : "success",
    });
    yield* this.drain();
    await this.save("tool_result");
    return done;
  }

  /** Ends the reply. */
  async *end(
    finishedReason: FinishReason,
    structuredOutput?: unknown,
    error?: ErrorInfo,
  ): AsyncGenerator<AgentEvent> {
    const init: Omit<EventInit<"REPLY_END">, "replyId"> = { finishedReason };
    if (structuredOutput !== undefined) init.structuredOutput = structuredOutput;
    if (error) init.error = error;
    this.emit("REPLY_END", init);
    delete this.state.replyContext;
    yield* this.drain();
    await this.save("reply_end");
  }

  *drain(): Generator<AgentEvent> {
    const out = this.out.splice(0);
    yield* out;
  }

  private push(event: AgentEvent): void {
    applyEventInPlace(this.msg, event);
    this.out.push(event);
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async *until(work: Promise<void>): AsyncGenerator<AgentEvent> {
    let settled = false;
    void work.then(() => {
      settled = true;
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
    while (true) {
      yield* this.drain();
      // Events may arrive (and the work settle) while the drain yields: look again before waiting.
      if (this.out.length > 0) continue;
      if (settled) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private async save(reason: "pause" | "tool_result" | "reply_end"): Promise<void> {
    await this.options.checkpoint?.(this.state, reason);
  }
}
