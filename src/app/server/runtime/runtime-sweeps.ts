import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import type { DeadlineIndex } from "./deadline-index.js";
import { deadlineSweep, expireSession } from "./deadline-sweep.js";
import type { RecoveryOutcome } from "./recover-session.js";
import { recoverySweep } from "./recovery-sweep.js";
import type { RunHandle, RunInput } from "./run-execution.js";
import type { ServiceLog } from "./service-log.js";
import type { ServiceRuntimeOptions } from "./service-runtime-options.js";
import type { StoreClock } from "./store-clock.js";
import { Sweeper } from "./sweeper.js";

export interface RuntimeSweepsContext {
  backend: ServiceBackend;
  log: ServiceLog;
  deadlines: DeadlineIndex;
  storeClock: StoreClock;
  /** The runtime's recovery of one session (`ServiceRuntime.recover`). */
  recover: (sessionId: string, options: { abandoned: true }) => Promise<RecoveryOutcome>;
  /** Starts a run of the session as its owner's (`record`: its record, just read). */
  runAsOwner: (sessionId: string, record: SessionRecord, input: RunInput) => Promise<RunHandle>;
}

/**
 * A runtime's sweeper, with its jobs: the recovery of runs whose lease was abandoned (backends that
 * can list them), and the expiry of pause deadlines (when an agent's approver policy sets one).
 * Not started: the runtime starts it.
 */
export function runtimeSweeper(
  ctx: RuntimeSweepsContext,
  options: Pick<ServiceRuntimeOptions, "sweepEveryMs" | "agents">,
): Sweeper {
  const { backend, log } = ctx;
  const sweeper = new Sweeper(options.sweepEveryMs ?? 5_000, (job, error) =>
    log({ level: "error", message: `${job.name}: ${(error as Error).message}` }),
  );
  // a failure to recover one session is logged, not thrown: the sweep goes on to the next
  const recovery = recoverySweep(backend, async (sessionId) => {
    try {
      return await ctx.recover(sessionId, { abandoned: true });
    } catch (error) {
      log({ level: "error", sessionId, message: `recovery failed: ${(error as Error).message}` });
      return "running";
    }
  });
  if (recovery) sweeper.register(recovery);
  if (options.agents.some((agent) => agent.approvers?.policies.some((p) => p.expiresAfterMs !== undefined)))
    sweeper.register(
      // a session's due asks expire through a run of its own, as its owner's
      deadlineSweep(ctx.deadlines, ctx.storeClock, async (sessionId, at) => {
        const record = await backend.sessions.get(sessionId);
        if (!record) return "moot";
        return expireSession((input) => ctx.runAsOwner(sessionId, record, input), at);
      }),
    );
  return sweeper;
}
