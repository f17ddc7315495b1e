import { z } from "zod";
import type { ReplyInput, ReplyOptions } from "../agent/index.js";
import { type AgentEvent, createEvent } from "../event/index.js";
import { newId } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { functionTool, type Tool, ToolError } from "../tool/index.js";
import type { AgentLike } from "./agent-like.js";

/** Where a session keeps who answers it (its tool data, saved with the state). */
export const HANDOFF_KEY = "agentscope.handoff";

/** The CUSTOM event of a switch; its value is a `HandoffChange`. */
export const HANDOFF_EVENT = "handoff";

export interface HandoffChange {
  from: string;
  to: string;
  reason?: string;
}

interface HandoffData {
  /** The agent answering the session now. */
  active: string;
  /** A switch asked for in the reply running now, taken when it ends. */
  pending?: { to: string; reason?: string };
}

export interface HandoffOptions {
  /** The agents that may answer, the first one answering a new session. Names must differ. */
  agents: readonly AgentLike[];
  /** The router's name (default: the first agent's). */
  name?: string;
}

/**
 * Handoffs (as OpenAI Agents has them): several agents share one session (one history); the one
 * answering may call `handoff { to, reason? }` to transfer the conversation. Its reply stops, a
 * CUSTOM `handoff { from, to, reason }` event follows, and the agent handed to answers the rest
 * of the turn (a new reply on the same history) and every later turn, until it hands off in turn.
 * Who answers is in the session's state, so it survives a restart. Give each agent the tool from
 * `router.toolFor(agent)`.
 */
export class HandoffRouter implements AgentLike {
  readonly name: string;
  private readonly agents: Map<string, AgentLike>;

  constructor(options: HandoffOptions) {
    if (!Array.isArray(options.agents) || options.agents.length < 2) {
      throw new TypeError("HandoffRouter: agents must list at least two agents");
    }
    this.agents = new Map();
    for (const agent of options.agents) {
      if (this.agents.has(agent.name))
        throw new TypeError(`HandoffRouter: two agents are named "${agent.name}"`);
      this.agents.set(agent.name, agent);
    }
    this.name = options.name ?? options.agents[0]!.name;
  }

  createState(sessionId?: string): AgentState {
    return this.first().createState(sessionId);
  }

  /** The agent answering this session now. */
  activeAgent(state: AgentState): string {
    return activeAgentOf(state, this.first().name);
  }

  /** The `handoff` tool for `agent`: it may hand off to any other agent of the router. */
  toolFor(agent: AgentLike): Tool {
    if (!this.agents.has(agent.name))
      throw new TypeError(`HandoffRouter: "${agent.name}" is not one of its agents`);
    return handoffTool(
      agent.name,
      [...this.agents.keys()].filter((name) => name !== agent.name),
    );
  }

  async *replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): AsyncGenerator<AgentEvent> {
    const state = options.state ?? this.createState();
    let next: ReplyInput = input;
    // One switch per reply of the active agent; a chain of handoffs ends at the agent count.
    for (let hops = 0; hops <= this.agents.size; hops++) {
      const agent = this.agents.get(this.activeAgent(state)) ?? this.first();
      let lastReplyId: string | undefined;
      for await (const event of agent.replyStream(next, { ...options, state })) {
        lastReplyId = event.replyId;
        yield event;
      }
      if (state.replyContext?.waitingFor) return;
      const change = takeHandoff(state, this.first().name);
      if (!change) return;
      yield createEvent("CUSTOM", {
        replyId: lastReplyId ?? newId("reply"),
        name: HANDOFF_EVENT,
        value: change,
      });
      next = undefined;
    }
  }

  private first(): AgentLike {
    return this.agents.values().next().value!;
  }
}

/**
 * The `handoff` tool of agent `from`, which may hand off to `to` (agent names): the call records the
 * switch in the session's tool data (taken when its reply ends: `takeHandoff`) and stops the reply.
 */
export function handoffTool(from: string, to: readonly string[]): Tool {
  if (to.length === 0) throw new TypeError(`handoffTool: "${from}" has no agent to hand off to`);
  return functionTool({
    name: "handoff",
    description: `Transfers the conversation to another agent, who answers from now on with the whole history. Agents: ${to.join(", ")}.`,
    input: z.object({
      to: z.enum(to as [string, ...string[]]),
      reason: z.string().max(2000).optional().describe("Why, for the agent taking over"),
    }),
    readOnly: true,
    pathsOf: () => [],
    execute: ({ to: target, reason }, ctx) => {
      const data = dataOf(ctx.state, from);
      if (data.pending) throw new ToolError(`this reply already hands off to ${data.pending.to}`);
      data.active = from;
      data.pending = { to: target, ...(reason ? { reason } : {}) };
      ctx.requestStop(`handed off to ${target}`);
      return `Handing off to ${target}.`;
    },
  });
}

/**
 * Takes the switch a reply of `state` asked for: the agent handed to answers from now on (kept in
 * the state). The change, or undefined when none was asked for. `first`: who answers a new session.
 */
export function takeHandoff(state: AgentState, first: string): HandoffChange | undefined {
  const data = dataOf(state.toolContext, first);
  const pending = data.pending;
  if (!pending) return undefined;
  delete data.pending;
  const change: HandoffChange = {
    from: data.active,
    to: pending.to,
    ...(pending.reason ? { reason: pending.reason } : {}),
  };
  data.active = pending.to;
  return change;
}

/** Who answers the session now, by its handoff data (`first` when nobody handed off yet). */
export function activeAgentOf(state: AgentState, first: string): string {
  return dataOf(state.toolContext, first).active;
}

/** The session's handoff data in its tool data (`toolState`), created with `first` answering. */
function dataOf(toolState: Record<string, unknown>, first: string): HandoffData {
  let data = toolState[HANDOFF_KEY] as HandoffData | undefined;
  if (!data || typeof data.active !== "string") {
    data = { active: first };
    toolState[HANDOFF_KEY] = data;
  }
  return data;
}
