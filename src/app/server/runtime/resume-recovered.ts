import { retryAnswer } from "../../../agent/index.js";
import type { UserConfirmResult } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";
import type { LocalRuns } from "./local-runs.js";
import { type RecoveryOutcome, recoverSession } from "./recover-session.js";
import type { RunHandle } from "./run-execution.js";
import type { RuntimeLinks } from "./runtime-links.js";
import type { ServiceLog } from "./service-log.js";

export interface RecoveryContext {
  backend: ServiceBackend;
  log: ServiceLog;
  runs: LocalRuns;
  links: RuntimeLinks;
  /** Every session recovery closed continues with a new reply. */
  resumeOnRecovery: boolean;
  /** Starts the reply that continues the session, as its owner's. */
  resume: (owner: string, sessionId: string, input: UserConfirmResult | undefined) => Promise<RunHandle>;
}

/**
 * Closes the session's cut-off reply (see `recoverSession`) unless it runs on this replica, then
 * continues it when there is reason to: idempotent effects cut off mid-run are run again with their
 * key (the runtime's answer), and with `resumeOnRecovery` (or a link that resumes the session) a new
 * reply starts. A resume that fails leaves the reply closed.
 */
export async function recoverAndResume(
  ctx: RecoveryContext,
  sessionId: string,
  options: { abandoned?: boolean } = {},
): Promise<RecoveryOutcome> {
  if (ctx.runs.has(sessionId)) return "running";
  const outcome = await recoverSession(ctx.backend, sessionId, options);
  if (outcome === "closed") {
    ctx.log({ level: "info", sessionId, message: "closed a cut-off reply (its run's lease was abandoned)" });
    const stored = await ctx.backend.store.load(sessionId);
    const retry = stored ? retryAnswer(stored.state) : undefined;
    if (retry || ctx.resumeOnRecovery || (await ctx.links.resumes(sessionId))) {
      const record = await ctx.backend.sessions.get(sessionId);
      if (record) await ctx.resume(record.owner, sessionId, retry).catch(() => {});
    }
  }
  return outcome;
}
