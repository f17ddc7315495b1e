import type { z } from "zod";
import {
  type AgentEvent,
  type AgentEventType,
  applyEventInPlace,
  createEvent,
  type EventInit,
} from "../event/index.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import type { ChatModel } from "../model/core.js";
import type { PricingTable } from "../model/pricing/index.js";
import type { Approval, ApproverOptions } from "../permission/index.js";
import type { AgentState } from "../state/index.js";
import type { Tool, Toolkit } from "../tool/index.js";
import type { ContextOptions } from "./compression.js";
import { ReplyStateError } from "./errors.js";
import type { AgentEventInit, Middleware } from "./middleware.js";
import type { FingerprintBase } from "./pause-change-policy.js";
import type { ReplyOutput } from "./reply-output.js";
import type { ReplyReader } from "./reply-reader.js";
import type { ReplyStages } from "./reply-stages.js";
import type { AgentOptions, CheckpointReason, PermissionDecider, ReplyInput, ReplyOptions } from "./types.js";

/** What a reply needs from its agent (fixed for the agent's life). */
export interface RunConfig {
  name: string;
  systemPrompt: string;
  model: ChatModel;
  fallbackModel?: ChatModel;
  toolkit: Toolkit;
  maxIters: number;
  decide: PermissionDecider;
  /** Who may answer which asks (checked once, by the Agent). */
  approvers?: ApproverOptions;
  checkpoint?: AgentOptions["checkpoint"];
  middlewares: readonly Middleware[];
  context: ContextOptions;
  /** Prices model calls (MODEL_CALL_END `cost`); absent: no cost figures. */
  pricing?: PricingTable;
  /** What pauses' fingerprints take from the agent, and what a changed one does (pause-fingerprints.ts). */
  fingerprint?: FingerprintBase;
}

/**
 * A session's turn: one reply at a time runs on a session state. `take` is called when the reply
 * starts (it may throw: nothing has changed yet), `release` when it ends, however it ends.
 */
export interface SessionTurn {
  take(input: ReplyInput): void;
  release(): void;
}

/**
 * The state of one reply while it runs, and its one way to change the reply: `emit`/`push` fold an
 * event into the reply Msg (`applyEventInPlace`, the reducer a client folds with) and queue it for
 * the reader; `send` hands what is queued to the reader. The steps (start, resume, reason, act,
 * compress, finish) are functions of it; the loop that calls them is `runReply`.
 */
export class ReplyRun {
  /** The reply's assistant Msg, from the moment the reply starts or resumes. */
  msg!: Msg;
  /** Set when a tool or a middleware asks to stop: the reply ends after the current step. */
  stopReason: string | undefined;
  /** What REQUEST_STOP carries beside the reason, as its `metadata` (a guardrail's typed trip). */
  stopMetadata: Record<string, unknown> | undefined;
  /**
   * The calls a person approved in the answer this run resumed with: the gate decides each again
   * with that approval, for the input it has now (edited or not).
   */
  readonly approvals = new Map<string, Approval>();
  /** Calls to ask about again whatever the gate says, with the reason (what changed since they paused). */
  readonly reasks = new Map<string, string>();
  /** What the answer must be (plain, or structured by a tool or natively); set when the reply starts or resumes. */
  output!: ReplyOutput;
  /** Who reads the events (set by `runReply`). */
  reader!: ReplyReader;
  /** The stages middleware may wrap (straight calls without middleware). */
  readonly stages: ReplyStages;
  #unsent: AgentEvent[] = [];
  /** Whether `#unsent` holds a TOOL_RESULT_END (a checkpoint follows its hand-over). */
  #resultEnded = false;
  /** Resolves the wait of `sendUntil` on the next event. */
  #nextEvent: (() => void) | undefined;

  constructor(
    readonly config: RunConfig,
    readonly state: AgentState,
    readonly options: ReplyOptions<z.ZodType | undefined>,
    stagesFor: (run: ReplyRun) => ReplyStages,
    readonly turn?: SessionTurn,
  ) {
    this.stages = stagesFor(this);
  }

  emit<T extends AgentEventType>(type: T, init: Omit<EventInit<T>, "replyId">): void {
    this.push(createEvent(type, { ...init, replyId: this.msg.id } as EventInit<T>));
  }

  /** An event a middleware or a compression emits (no replyId yet). */
  emitInit(event: AgentEventInit): void {
    if (!this.msg) throw new ReplyStateError("a middleware emitted an event before the reply started");
    this.push(createEvent(event.type, { ...event, replyId: this.msg.id } as EventInit<typeof event.type>));
  }

  /** Folds `event` into the reply and queues it for the reader (watchers see it first). */
  push(event: AgentEvent): void {
    this.stages.onEvent?.(event);
    applyEventInPlace(this.msg, event);
    this.#unsent.push(event);
    if (event.type === "TOOL_RESULT_END") this.#resultEnded = true;
    const next = this.#nextEvent;
    if (next !== undefined) {
      this.#nextEvent = undefined;
      next();
    }
  }

  /**
   * One hand-over of the queued events (the streaming path): a promise only when the reader makes
   * the run wait, or when a finished tool result is to be saved after it is handed over.
   */
  sendStep(): Promise<void> | undefined {
    const events = this.#unsent;
    if (events.length === 0) return undefined;
    this.#unsent = [];
    if (!this.#resultEnded) return this.reader(events);
    this.#resultEnded = false;
    return this.#sendSavingResults(events);
  }

  /** Hands every queued event to the reader, events queued meanwhile too. */
  async send(): Promise<void> {
    while (this.#unsent.length > 0) {
      const taking = this.sendStep();
      if (taking !== undefined) await taking;
    }
  }

  /** Hands events over as they are emitted until `work` settles (a tool runs and streams its output). */
  async sendUntil(work: Promise<unknown>): Promise<void> {
    let settled = false;
    const wake = () => {
      settled = true;
      const next = this.#nextEvent;
      this.#nextEvent = undefined;
      next?.();
    };
    const done = work.then(wake, (error: unknown) => {
      wake();
      throw error;
    });
    while (true) {
      await this.send();
      if (settled) break;
      if (this.#unsent.length > 0) continue; // emitted while the reader had the last ones
      await new Promise<void>((resolve) => {
        this.#nextEvent = resolve;
      });
    }
    await done;
    await this.send();
  }

  /** A checkpoint after each finished tool result, once the reader has it. */
  async #sendSavingResults(events: AgentEvent[]): Promise<void> {
    let from = 0;
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.type !== "TOOL_RESULT_END") continue;
      await this.reader(events.slice(from, i + 1));
      await this.save("tool_result");
      from = i + 1;
    }
    if (from < events.length) await this.reader(events.slice(from));
  }

  async save(reason: CheckpointReason): Promise<void> {
    const checkpoint = this.options.checkpoint ?? this.config.checkpoint;
    if (checkpoint) await checkpoint(this.state, reason);
  }

  /** The tool a call names: the answer tool of structured output, or an active tool of the toolkit. */
  findTool(name: string): Tool | undefined {
    const answerTool = this.output.tool;
    if (answerTool !== undefined && name === answerTool.name) return answerTool;
    return this.config.toolkit.isActive(name) ? this.config.toolkit.get(name) : undefined;
  }

  /** The names of the tools the model may call. */
  toolNames(): string[] {
    const names = this.config.toolkit.schemas().map((schema) => schema.name);
    if (this.output.tool !== undefined) names.push(this.output.tool.name);
    return names;
  }

  findCall(id: string): ToolCallBlock | undefined {
    return this.msg.content.find((b): b is ToolCallBlock => b.type === "tool_call" && b.id === id);
  }
}
