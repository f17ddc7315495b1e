import type { ServiceBackend } from "../backend/types.js";
import type { RecoveryOutcome } from "./recover-session.js";
import type { SweepJob } from "./sweeper.js";

/** Abandoned leases read per page, and pages per sweep at most (the next sweep takes the rest). */
const PAGE = 100;
const PAGES_PER_SWEEP = 10;
/** Sessions closed at once. */
const AT_ONCE = 8;

/**
 * The sweeper's recovery job: every session whose run lease was abandoned (expired unreleased, or its
 * process on this host gone), of every user, goes to `recover`, which takes the lease (one replica
 * wins it; the others skip the session) and closes the cut-off reply. Nobody needs to watch the
 * session. A session tried once in a sweep is not tried again in it.
 */
export function recoverySweep(
  backend: ServiceBackend,
  recover: (sessionId: string) => Promise<RecoveryOutcome>,
): SweepJob | undefined {
  const abandoned = backend.locks.abandoned?.bind(backend.locks);
  if (!abandoned) return undefined;
  return {
    name: "recover abandoned runs",
    async run() {
      const tried = new Set<string>();
      for (let page = 0; page < PAGES_PER_SWEEP; page++) {
        const found = (await abandoned(PAGE)).filter((lease) => !tried.has(lease.sessionId));
        if (found.length === 0) return;
        for (const lease of found) tried.add(lease.sessionId);
        const queue = found.map((lease) => lease.sessionId);
        const worker = async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) await recover(id);
        };
        await Promise.all(Array.from({ length: Math.min(AT_ONCE, queue.length) }, worker));
      }
    },
  };
}
