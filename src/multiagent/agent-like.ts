import type { z } from "zod";
import type { ReplyInput, ReplyOptions } from "../agent/index.js";
import type { AgentEvent } from "../event/index.js";
import type { AgentState } from "../state/index.js";

/**
 * What multi-agent helpers need from an agent: a name, a fresh session state, and one reply as a
 * stream. `Agent`, the pipelines and `A2AAgent` all fit. `replyStream` must honour
 * `options.state` (the session to run on), `signal`, and `source` (the slash path its events carry),
 * and end a paused reply's stream without REPLY_END, leaving `state.replyContext.waitingFor` set.
 */
export interface AgentLike {
  readonly name: string;
  createState(sessionId?: string): AgentState;
  replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options?: ReplyOptions<S>,
  ): AsyncGenerator<AgentEvent>;
}
