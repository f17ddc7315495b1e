import type { Agent } from "../../../agent/index.js";
import { createEvent } from "../../../event/index.js";
import { HANDOFF_EVENT, HANDOFF_KEY, takeHandoff } from "../../../multiagent/index.js";
import type { AgentState } from "../../../state/index.js";
import type { AgentTurns } from "./run-execution.js";

/**
 * Handoffs in the service: a session is answered by the agent its state names (`handoff` recorded
 * it: `toolContext["agentscope.handoff"]`, saved with the session, so it holds after a restart and on
 * every replica), else by its record's agent. When a reply hands off, the agent handed to answers on
 * in the same run (a new reply on the same history) after a CUSTOM `handoff { from, to, reason }`
 * event; at most one switch per agent per run.
 */
export function handoffTurns(agents: ReadonlyMap<string, Agent>, sessionAgent: string): AgentTurns {
  const fallback = agents.get(sessionAgent)!;
  let hops = 0;
  return {
    first: (state) => agents.get(answeringAgentName(agents, sessionAgent, state)) ?? fallback,
    next(state) {
      if (state.replyContext?.waitingFor || hops >= agents.size) return undefined;
      const data = state.toolContext[HANDOFF_KEY] as { pending?: { to: string } } | undefined;
      if (!data?.pending || !agents.has(data.pending.to)) return undefined;
      const change = takeHandoff(state, sessionAgent)!;
      hops++;
      const replyId = state.context.findLast((msg) => msg.role === "assistant")?.id ?? "";
      return {
        agent: agents.get(change.to)!,
        event: createEvent("CUSTOM", { replyId, name: HANDOFF_EVENT, value: change }),
      };
    },
  };
}

function activeOf(state: AgentState): string | undefined {
  const data = state.toolContext[HANDOFF_KEY] as { active?: unknown } | undefined;
  return typeof data?.active === "string" ? data.active : undefined;
}

/** The name of the agent that answers the session in `state` (as `handoffTurns(...).first` picks it). */
export function answeringAgentName(
  agents: ReadonlyMap<string, unknown>,
  sessionAgent: string,
  state: AgentState,
): string {
  const active = activeOf(state);
  return active !== undefined && agents.has(active) ? active : sessionAgent;
}
