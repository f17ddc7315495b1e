import type { z } from "zod";
import {
  type AgentEvent,
  type AgentEventType,
  applyEventInPlace,
  createEvent,
  type EventInit,
} from "../event/index.js";
import type { ErrorInfo, FinishReason, Msg, ToolCallBlock } from "../message/index.js";
import type { ChatModel } from "../model/core.js";
import { type AgentState, replaceUnstorableChars } from "../state/index.js";
import type { Tool, Toolkit } from "../tool/index.js";
import type { ContextOptions } from "./compression.js";
import { ReplyStateError } from "./errors.js";
import type { Middleware, ToolCallOutcome, ToolCallRequest } from "./middleware.js";
import { MiddlewareRunner } from "./middleware-runner.js";
import { openCalls } from "./open-calls.js";
import { structuredOutputTool } from "./structured-output.js";
import type { OutputPart } from "./tool-output.js";
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

/**
 * The event plumbing of one reply: every change to the reply Msg goes through an event folded with
 * `applyEventInPlace` and buffered in `out` until the run yields it. ActingRun and ReplyRun build on it.
 */
export abstract class ReplyCore {
  protected readonly out: AgentEvent[] = [];
  /** Where events go instead of being yielded (`Agent.replyTo`); unset, the run yields them. */
  sink: ((event: AgentEvent) => void) | undefined;
  protected wake: (() => void) | undefined;
  protected msg!: Msg;
  protected stopReason: string | undefined;
  /** The injected structured-output tool, in tool mode (set when the reply starts or resumes). */
  protected structuredTool: Tool | undefined;
  /** The schema the answer text must fit, in native mode (set when the reply starts or resumes). */
  protected nativeSchema: z.ZodType | undefined;
  protected structuredValue: unknown;
  protected structuredDone = false;
  /** Whether the agent has no middleware: every hook is skipped and no runner is built. */
  protected readonly noMiddleware: boolean;
  #mw: MiddlewareRunner | undefined;

  constructor(
    protected readonly config: RunConfig,
    protected readonly state: AgentState,
    protected readonly options: ReplyOptions<z.ZodType | undefined>,
    /** Called when the run starts (may throw: nothing has changed yet) and when it ends, however it ends. */
    protected readonly guard?: { start(input: ReplyInput): void; end(): void },
  ) {
    this.noMiddleware = config.middlewares.length === 0;
  }

  /**
   * The middleware chains of this reply, composed on first use. A run without middleware never asks
   * for them (its hot path checks `noMiddleware`), so most replies build none of its closures.
   */
  protected get mw(): MiddlewareRunner {
    this.#mw ??= new MiddlewareRunner(
      this.config.middlewares,
      {
        state: this.state,
        agentName: this.config.name,
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
      (request) => this.config.decide(request.tool, request.input, request.permission),
      (request) => this.runDecided(request),
    );
    return this.#mw;
  }

  /** The end of the middleware tool chain: runs the tool under its decision (ActingRun). */
  protected abstract runDecided(request: ToolCallRequest): Promise<ToolCallOutcome>;

  /** Sets up the structured output of this reply in `mode` (tool: the injected tool; native: the schema). */
  protected setStructuredMode(mode: "tool" | "native"): void {
    const schema = this.options.structuredOutput;
    if (!schema) return;
    if (mode === "native") this.nativeSchema = schema;
    else this.structuredTool = structuredOutputTool(schema);
  }

  /** The middleware context of this reply (for the reply-level hooks the Agent runs). */
  get middlewareRunner(): MiddlewareRunner {
    return this.mw;
  }

  /** The assistant Msg of this reply (after `run` has started). */
  get reply(): Msg {
    return this.msg;
  }

  protected emit<T extends AgentEventType>(type: T, init: Omit<EventInit<T>, "replyId">): void {
    this.push(createEvent(type, { ...init, replyId: this.msg.id } as EventInit<T>));
  }

  protected push(event: AgentEvent): void {
    if (!this.noMiddleware && this.mw.watchesEvents) this.mw.onEvent(event);
    applyEventInPlace(this.msg, event);
    this.out.push(event);
    this.notify();
  }

  protected notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake();
    }
  }

  /** Yields the buffered events (or hands them to the sink); saves a checkpoint after each finished tool result. */
  protected async *drain(): AsyncGenerator<AgentEvent> {
    const out = this.out;
    const sink = this.sink;
    let i = 0;
    while (i < out.length) {
      const event = out[i]!;
      i += 1;
      if (sink) sink(event);
      else yield event;
      if (event.type === "TOOL_RESULT_END") await this.save("tool_result");
    }
    out.length = 0;
  }

  protected async save(reason: CheckpointReason): Promise<void> {
    const checkpoint = this.options.checkpoint ?? this.config.checkpoint;
    if (checkpoint) await checkpoint(this.state, reason);
  }

  /** Yields events as they are emitted until `work` settles. */
  protected async *waitFor(work: Promise<unknown>): AsyncGenerator<AgentEvent> {
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

  protected emitOutput(toolCallId: string, parts: OutputPart[]): void {
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
  protected writeResult(call: ToolCallBlock, state: "error" | "denied" | "interrupted", text: string): void {
    this.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
    this.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: call.id, delta: text });
    this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
  }

  protected findCall(id: string): ToolCallBlock | undefined {
    return this.msg.content.find((b): b is ToolCallBlock => b.type === "tool_call" && b.id === id);
  }

  protected closeOpenCalls(state: "error" | "interrupted", text: string): void {
    for (const call of openCalls(this.msg)) this.writeResult(call, state, text);
  }

  protected end(finishedReason: FinishReason, error?: ErrorInfo): void {
    const init: EventInit<"REPLY_END"> = { replyId: this.msg.id, finishedReason };
    if (error) init.error = error;
    if (this.structuredDone) init.structuredOutput = this.structuredValue;
    this.push(createEvent("REPLY_END", init));
  }
}
