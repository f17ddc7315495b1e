import { DEADLINE, expiredAsks } from "../../../agent/index.js";
import { userConfirmResult } from "../../../event/index.js";
import type { AgentState } from "../../../state/index.js";
import { RequestError } from "../request-error.js";
import type { DeadlineIndex } from "./deadline-index.js";
import type { RunHandle, RunInput } from "./run-execution.js";
import type { StoreClock } from "./store-clock.js";
import type { SweepJob } from "./sweeper.js";

/** What trying a deadline did: its asks expired here, there was nothing (left) to expire, or it must wait. */
export type ExpiryOutcome = "expired" | "moot" | "busy";

/** The session has no ask whose deadline has passed (answered meanwhile, or expired by another replica). */
class NothingExpired extends Error {}

/**
 * The deadline's answer to a paused reply: every ask whose deadline is at or before `at` (the
 * store's clock), refused by `deadline` through `engine`. The agent takes it as the expiry itself
 * (`expire` records, then the denied results, or the policy's `onExpiry`), never as a person's no.
 */
export function deadlineAnswer(state: AgentState, at: number) {
  const reply = state.replyContext;
  const msg = state.context.at(-1);
  const calls = reply?.waitingFor && msg ? expiredAsks(msg, at) : [];
  if (calls.length === 0) throw new NothingExpired();
  return userConfirmResult({
    replyId: reply!.replyId,
    confirmResults: calls.map((call) => ({
      confirmed: false,
      toolCall: { id: call.id, name: call.name, input: call.input },
    })),
    answeredBy: { ...DEADLINE },
  });
}

/**
 * Expires a session's due asks through a run of its own (`run` takes the session's lease: one
 * replica wins, the others are `busy` and find nothing left next time, since the state they load
 * under the lease no longer asks). The reply then continues as after a refusal.
 */
export async function expireSession(
  run: (input: RunInput) => Promise<RunHandle>,
  at: number,
): Promise<ExpiryOutcome> {
  try {
    // accepted: the expiry is the run's first events; the reply goes on without the sweep waiting
    await run((state) => deadlineAnswer(state, at));
    return "expired";
  } catch (error) {
    if (error instanceof NothingExpired) return "moot";
    if (error instanceof RequestError && error.info.type === "not_found") return "moot";
    if (error instanceof RequestError && ["run_in_progress", "rate_limit"].includes(error.info.type))
      return "busy";
    throw error;
  }
}

/**
 * The sweeper's deadline job: reads the store's clock, then tries every indexed deadline that has
 * passed by it (earliest first). A deadline tried and found expired or moot is marked done in the
 * index; a busy one is tried again on the next sweep. Works after a restart: the index and the
 * deadlines are in the store.
 */
export function deadlineSweep(
  index: DeadlineIndex,
  clock: StoreClock,
  expire: (sessionId: string, at: number) => Promise<ExpiryOutcome>,
): SweepJob {
  return {
    name: "expire pause deadlines",
    async run() {
      const at = await clock.sync();
      for (const entry of await index.pending()) {
        if (Date.parse(entry.expiresAt) > at) return;
        if ((await expire(entry.sessionId, at)) !== "busy") await index.done(entry);
      }
    },
  };
}
