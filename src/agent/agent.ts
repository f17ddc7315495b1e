import type { z } from "zod";
import type { AgentEvent, InputEvent } from "../event/index.js";
import { AgentScopeError, assertRoleBlocks, type Msg, newId } from "../message/index.js";
import {
  checkApproverOptions,
  decidePermission,
  type PermissionContext,
  permissionContextFrom,
} from "../permission/index.js";
import type { AgentProfile, ToolTrial } from "../protocol/index.js";
import { type AgentState, emptyAgentState } from "../state/index.js";
import { type Skill, skillsPrompt, skillTool, Toolkit } from "../tool/index.js";
import { chatModelOf, checkAgentOptions } from "./agent-options.js";
import { agentProfile } from "./agent-profile.js";
import { type CompressionResult, compressState } from "./compress-state.js";
import { ReplyStateError } from "./errors.js";
import { guardedStages } from "./guarded-stages.js";
import { middlewareStages } from "./middleware-stages.js";
import { observedTaint } from "./observed-taint.js";
import { pullEvents } from "./pull-events.js";
import { recoverCutOffReply } from "./recover.js";
import { runReply } from "./reply-loop.js";
import { eventsTo } from "./reply-reader.js";
import { ReplyRun, type RunConfig } from "./reply-run.js";
import type { ReplyStages } from "./reply-stages.js";
import { directStages } from "./stages.js";
import { taintedStages } from "./taint.js";
import { type TryToolOptions, tryTool } from "./try-tool.js";
import type { AgentOptions, ReplyInput, ReplyOptions } from "./types.js";

/** The reply Msg, with `structuredOutput` typed from the schema when one was given. */
export type ReplyMsg<S> = S extends z.ZodType ? Msg<z.infer<S>> : Msg;

/**
 * A ReAct agent. `replyStream` yields every event of one reply; `reply` returns its assistant Msg.
 * All session data lives in `state` (plain JSON): save it, load it elsewhere, and a paused reply
 * resumes there. One Agent can serve many sessions by passing `{ state }` per call.
 */
export class Agent {
  readonly name: string;
  readonly toolkit: Toolkit;
  state: AgentState;
  private readonly config: RunConfig;
  private readonly running = new WeakSet<AgentState>();
  private readonly replyHooks: boolean;
  private readonly skills: readonly Skill[];

  /**
   * Checks `options` once, here (unknown keys with a "did you mean", wrong types, a bad model spec):
   * a ValidationError names the option, so a JavaScript caller learns at construction, not mid-reply.
   */
  constructor(options: AgentOptions) {
    checkAgentOptions(options);
    this.name = options.name;
    this.toolkit = options.toolkit instanceof Toolkit ? options.toolkit : new Toolkit(options.toolkit ?? []);
    this.state = options.state ?? this.newState(options.sessionId ?? newId("session"), options);
    const skills = options.skills ?? [];
    this.skills = skills;
    if (skills.length > 0) this.toolkit.register(skillTool(skills));
    const config: RunConfig = {
      name: options.name,
      systemPrompt: [options.systemPrompt ?? "", skills.length > 0 ? skillsPrompt(skills) : ""]
        .filter(Boolean)
        .join("\n\n"),
      model: chatModelOf(options.model),
      toolkit: this.toolkit,
      maxIters: options.maxIters ?? 50,
      decide: options.decidePermission ?? decidePermission,
      middlewares: options.middlewares ?? [],
      context: options.context ?? {},
    };
    if (options.fallbackModel) config.fallbackModel = chatModelOf(options.fallbackModel);
    if (options.checkpoint) config.checkpoint = options.checkpoint;
    if (options.pricing) config.pricing = options.pricing;
    if (options.approvers) config.approvers = checkApproverOptions(options.approvers);
    config.fingerprint = { permissionDefaults: permissionContextFrom(options.permission) };
    if (options.onPauseChange) config.fingerprint.onPauseChange = options.onPauseChange;
    this.config = config;
    this.replyHooks = config.middlewares.some((m) => m.onReply !== undefined);
    const direct = directStages(config.decide);
    const unguarded = config.middlewares.length === 0 ? () => direct : middlewareStages;
    const guardrails = options.guardrails;
    const guarded = guardrails
      ? (run: ReplyRun) => guardedStages(unguarded(run), run, guardrails)
      : unguarded;
    const taint = options.taint;
    this.stagesFor = taint ? (run) => taintedStages(guarded(run), run, taint) : guarded;
    this.observeTaint = taint ? observedTaint(options.name, taint.observed) : undefined;
    this.permissionDefaults = permissionContextFrom(options.permission);
  }

  private readonly permissionDefaults: Partial<PermissionContext>;
  /** Marks what `observe` adds from untrusted senders (taint tracking); undefined: observing marks nothing. */
  private readonly observeTaint: ((msgs: readonly Msg[], state: AgentState) => void) | undefined;

  private newState(sessionId: string, options: AgentOptions): AgentState {
    return emptyAgentState(sessionId, permissionContextFrom(options.permission));
  }

  /** A fresh state for a new session, with this agent's permission settings. */
  createState(sessionId: string = newId("session")): AgentState {
    return emptyAgentState(sessionId, this.permissionDefaults);
  }

  /**
   * Streams one reply. Input: new messages (or none), or an answer to a paused reply
   * (USER_CONFIRM_RESULT, EXTERNAL_EXECUTION_RESULT, USER_INTERRUPT). A paused reply ends its stream
   * without REPLY_END. Errors about the input (a wrong answer, a new message while calls wait) are
   * thrown before any event and change nothing.
   */
  replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): AsyncGenerator<AgentEvent> {
    const run = this.newRun(input, options);
    if (!run) return (async function* () {})();
    const stream = (actual: ReplyInput) => pullEvents((reader) => runReply(run, actual, reader));
    // Without onReply hooks the caller reads the run itself: no generator layer in between.
    return this.replyHooks ? hooked(run.stages.reply(input, stream)) : stream(input);
  }

  /**
   * Runs one reply as `replyStream` does, but hands each event to `onEvent` as it is emitted instead
   * of yielding it: the run pushes, nothing waits between the model's stream and the consumer. For a
   * consumer that only forwards events (the service's run). Resolves when the reply has ended or
   * paused; errors about the input reject before any event, and change nothing. With `onReply`
   * middleware, the hooks' stream is forwarded.
   */
  async replyTo<S extends z.ZodType | undefined = undefined>(
    input: ReplyInput,
    onEvent: (event: AgentEvent) => void,
    options: ReplyOptions<S> = {},
  ): Promise<void> {
    const run = this.newRun(input, options);
    if (!run) return;
    if (!this.replyHooks) return runReply(run, input, eventsTo(onEvent));
    const stream = (actual: ReplyInput) => pullEvents((reader) => runReply(run, actual, reader));
    for await (const event of run.stages.reply(input, stream)) onEvent(event);
  }

  /** The run of one reply, or undefined for an interrupt with nothing in flight (changes nothing). */
  private newRun(input: ReplyInput, options: ReplyOptions<z.ZodType | undefined>): ReplyRun | undefined {
    const state = options.state ?? this.state;
    if (
      isAnswer(input) &&
      input.type === "USER_INTERRUPT" &&
      !state.replyContext &&
      !this.running.has(state)
    ) {
      return undefined;
    }
    return new ReplyRun(this.config, state, options, this.stagesFor, {
      take: (actual) => this.enter(state, actual),
      release: () => this.running.delete(state),
    });
  }

  /** How a reply runs its stages: chosen once, here (an agent without middleware calls them straight). */
  private readonly stagesFor: (run: ReplyRun) => ReplyStages;

  /** One reply per state at a time; input checked and a cut-off reply repaired before anything runs. */
  private enter(state: AgentState, input: ReplyInput): void {
    if (this.running.has(state)) {
      throw new ReplyStateError(`a reply is already running for session "${state.sessionId}"`);
    }
    if (!isAnswer(input)) {
      const messages = input === undefined ? [] : Array.isArray(input) ? input : [input];
      for (const msg of messages) assertRoleBlocks(msg.role, msg.content);
      recoverCutOffReply(state);
    }
    this.running.add(state);
  }

  /**
   * What this agent is for a session (the studio's inspector): the system prompt exactly as the next
   * model call of `state` sends it (middleware `systemPrompt` hooks run on a copy, group notes
   * added), the model, tools with schemas and permission behaviour, rules and mode, middleware,
   * MCP servers and skills. Changes nothing.
   */
  profile(state: AgentState = this.state): AgentProfile {
    return agentProfile(this.config, state, this.skills);
  }

  /**
   * Runs one of this agent's tools by hand (the studio's playground) as a model's call would run:
   * parsed by its schema, decided by the permission gate for this input in `state`'s permission
   * context, called under that decision; an ask runs only with `approved`. `state` is not changed.
   */
  tryTool(
    name: string,
    input: unknown,
    state: AgentState = this.state,
    options: TryToolOptions = {},
  ): Promise<ToolTrial> {
    return tryTool(this.config, state, name, input, options);
  }

  /**
   * Compresses the context of a session now: everything before the last user message becomes a summary
   * sent right after the system prompt. Refused while a reply runs on that state.
   */
  async compressContext(state: AgentState = this.state, signal?: AbortSignal): Promise<CompressionResult> {
    if (this.running.has(state))
      throw new ReplyStateError(`a reply is running for session "${state.sessionId}"`);
    const context = this.config.context;
    const summaryModel = context.summaryModel ?? this.config.model;
    // On demand, everything before the last user message is summarised.
    return compressState(state, this.config.model, summaryModel, context, { signal, keepTokens: 0 });
  }

  /** Closes what the toolkit holds open (MCP servers). Call it when the agent is no longer needed. */
  async close(): Promise<void> {
    await this.toolkit.close();
  }

  /** Runs one reply to its end (or its pause) and returns the reply's assistant Msg. */
  async reply<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): Promise<ReplyMsg<S>> {
    let replyId: string | undefined;
    for await (const event of this.replyStream(input, options)) replyId ??= event.replyId;
    const state = options.state ?? this.state;
    // An interrupt with nothing in flight answers with the last reply, unchanged.
    if (replyId === undefined && isAnswer(input) && input.type === "USER_INTERRUPT") {
      replyId = state.context.findLast((m) => m.role === "assistant")?.id;
    }
    const msg = state.context.findLast((m) => m.id === replyId);
    if (!msg) throw new ReplyStateError("the reply produced no message");
    if (options.throwOnError && msg.finishedReason === "error")
      throw new AgentScopeError(msg.error ?? { type: "internal", message: "the reply failed" });
    return msg as ReplyMsg<S>;
  }

  /**
   * Adds messages to the context without replying (e.g. what other agents said). With taint tracking,
   * a message from a sender the agent does not trust marks its replies (TaintOptions.observed).
   */
  observe(msgs: Msg | Msg[], state: AgentState = this.state): void {
    const list = Array.isArray(msgs) ? msgs : [msgs];
    for (const msg of list) assertRoleBlocks(msg.role, msg.content);
    if (state.replyContext?.waitingFor) {
      throw new ReplyStateError(
        `session "${state.sessionId}" has a reply waiting; answer it before adding messages`,
      );
    }
    state.context.push(...list);
    this.observeTaint?.(list, state);
  }
}

/** The stream of the `onReply` hooks as an AsyncGenerator (what `replyStream` returns). */
async function* hooked(events: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  yield* events;
}

function isAnswer(input: ReplyInput): input is InputEvent {
  return typeof input === "object" && input !== null && !Array.isArray(input) && "type" in input;
}
