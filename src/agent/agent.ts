import type { z } from "zod";
import type { AgentEvent, InputEvent } from "../event/index.js";
import { AgentScopeError, assertRoleBlocks, type Msg, newId } from "../message/index.js";
import { decidePermission, type PermissionContext, permissionContextFrom } from "../permission/index.js";
import { type AgentState, emptyAgentState } from "../state/index.js";
import { skillsPrompt, skillTool, Toolkit } from "../tool/index.js";
import { chatModelOf, checkAgentOptions } from "./agent-options.js";
import { type CompressionResult, compressState } from "./compress-state.js";
import { ReplyStateError } from "./errors.js";
import { composeHooks } from "./middleware-runner.js";
import { recoverCutOffReply } from "./recover.js";
import type { RunConfig } from "./reply-core.js";
import { ReplyRun } from "./reply-run.js";
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
    this.config = config;
    this.replyHooks = config.middlewares.some((m) => m.onReply !== undefined);
    this.permissionDefaults = permissionContextFrom(options.permission);
  }

  private readonly permissionDefaults: Partial<PermissionContext>;

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
    // Without onReply hooks the caller iterates the run itself: no generator layer in between.
    return this.replyHooks ? this.withReplyHooks(run, input) : run.run(input);
  }

  /**
   * Runs one reply as `replyStream` does, but hands each event to `onEvent` as it is emitted instead
   * of yielding it: no generator step per event, nothing suspended between the model's stream and
   * the consumer while the reply waits for the model. For a consumer that only forwards events (the
   * service's run). Resolves when the reply has ended or paused; errors about the input reject before
   * any event, and change nothing. With `onReply` middleware, the hooks' stream is forwarded.
   */
  async replyTo<S extends z.ZodType | undefined = undefined>(
    input: ReplyInput,
    onEvent: (event: AgentEvent) => void,
    options: ReplyOptions<S> = {},
  ): Promise<void> {
    const run = this.newRun(input, options);
    if (!run) return;
    if (this.replyHooks) {
      for await (const event of this.withReplyHooks(run, input)) onEvent(event);
      return;
    }
    run.sink = onEvent;
    const events = run.run(input);
    for (let next = await events.next(); !next.done; next = await events.next()) onEvent(next.value);
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
    return new ReplyRun(this.config, state, options, {
      start: (actual) => this.enter(state, actual),
      end: () => this.running.delete(state),
    });
  }

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

  /** Runs the reply inside every middleware's `onReply`, outermost first. */
  private async *withReplyHooks(run: ReplyRun, input: ReplyInput): AsyncGenerator<AgentEvent> {
    const runner = run.middlewareRunner;
    const chain = composeHooks<ReplyInput, AsyncIterable<AgentEvent>>(
      this.config.middlewares,
      (m) => m.onReply,
      (m) => runner.contextFor(m),
      (next) => run.run(next),
    );
    yield* chain(input);
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

  /** Adds messages to the context without replying (e.g. what other agents said). */
  observe(msgs: Msg | Msg[], state: AgentState = this.state): void {
    const list = Array.isArray(msgs) ? msgs : [msgs];
    for (const msg of list) assertRoleBlocks(msg.role, msg.content);
    if (state.replyContext?.waitingFor) {
      throw new ReplyStateError(
        `session "${state.sessionId}" has a reply waiting; answer it before adding messages`,
      );
    }
    state.context.push(...list);
  }
}

function isAnswer(input: ReplyInput): input is InputEvent {
  return typeof input === "object" && input !== null && !Array.isArray(input) && "type" in input;
}
