import type { z } from "zod";
import type { AgentEvent } from "../event/index.js";
import type { AgentState, AgentStateStore } from "../state/index.js";
import type { Agent, ReplyMsg } from "./agent.js";
import { recoverCutOffReply } from "./recover.js";
import type { ReplyInput, ReplyOptions } from "./types.js";

export interface OpenSessionOptions {
  /**
   * Repair a reply that was cut off mid-flight (default true): finished results are kept, calls that
   * were running are closed as `interrupted`, and the repair is saved. Only safe while no other
   * process runs a reply on this session (a service takes its session lock first).
   */
  recover?: boolean;
}

/**
 * A durable session: an agent, a store and a session id. Every reply checkpoints the state with
 * compare-and-set at each step that matters (reply start, after each model call and tool result, at
 * a pause, at the end), so a killed process loses at most the step in flight, and a paused reply
 * resumes from any process that opens the session.
 */
export class Session {
  private constructor(
    readonly agent: Agent,
    readonly store: AgentStateStore,
    private current: AgentState,
    private storedVersion: number,
  ) {}

  static async open(
    agent: Agent,
    store: AgentStateStore,
    sessionId: string,
    options: OpenSessionOptions = {},
  ): Promise<Session> {
    const loaded = await store.load(sessionId);
    const session = new Session(
      agent,
      store,
      loaded?.state ?? agent.createState(sessionId),
      loaded?.version ?? 0,
    );
    if (loaded && options.recover !== false && recoverCutOffReply(session.current)) await session.save();
    return session;
  }

  get sessionId(): string {
    return this.current.sessionId;
  }

  get state(): AgentState {
    return this.current;
  }

  /** The version last saved or loaded; 0 when the session was never saved. */
  get version(): number {
    return this.storedVersion;
  }

  /** Saves the state now. Throws StateConflictError if another process saved since. */
  async save(): Promise<void> {
    const { version } = await this.store.save(this.current.sessionId, this.current, {
      expectedVersion: this.storedVersion,
    });
    this.storedVersion = version;
  }

  /** Reloads the state from the store (e.g. after another process changed it). */
  async reload(): Promise<void> {
    const loaded = await this.store.load(this.current.sessionId);
    if (!loaded) throw new Error(`session "${this.current.sessionId}" is not in the store`);
    this.current = loaded.state;
    this.storedVersion = loaded.version;
  }

  replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: Omit<ReplyOptions<S>, "state" | "checkpoint"> = {},
  ): AsyncGenerator<AgentEvent> {
    return this.agent.replyStream(input, { ...options, state: this.current, checkpoint: () => this.save() });
  }

  reply<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: Omit<ReplyOptions<S>, "state" | "checkpoint"> = {},
  ): Promise<ReplyMsg<S>> {
    return this.agent.reply(input, { ...options, state: this.current, checkpoint: () => this.save() });
  }
}
