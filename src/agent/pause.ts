import type { AgentState, WaitingFor } from "../state/index.js";

/** What the calls waiting on nested runs wait for (a confirmation first), or undefined when none do. */
export function suspendedWaitingFor(state: AgentState): WaitingFor | undefined {
  const entries = Object.values(state.replyContext?.suspended ?? {});
  if (entries.length === 0) return undefined;
  return entries.some((entry) => entry.waitingFor === "user_confirm") ? "user_confirm" : "external_execution";
}

/**
 * Pauses the reply again when calls still wait on nested runs and nothing else can run.
 * Returns true when it paused.
 */
export function pauseForNested(state: AgentState): boolean {
  const waitingFor = suspendedWaitingFor(state);
  if (waitingFor === undefined) return false;
  state.replyContext!.waitingFor = waitingFor;
  return true;
}
