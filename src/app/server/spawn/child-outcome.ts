import { addUsage, finalText, type SpawnRecord } from "../../../multiagent/index.js";
import type { ServiceBackend } from "../backend/types.js";

/**
 * Brings a running spawn record up to date from its sub-agent's session (its state and lock in the
 * service's stores, so any replica, before or after a restart, reads the same). True when the record
 * changed: the sub-agent has ended (or, unexposed, paused for a confirmation nobody gives it).
 * A cut-off reply (its run died) is not an end: recovery closes it and the session resumes.
 */
export async function settleFromChild(backend: ServiceBackend, record: SpawnRecord): Promise<boolean> {
  if (record.status !== "running") return false;
  const [stored, held] = await Promise.all([
    backend.store.load(record.sessionId),
    backend.locks.isHeld(record.sessionId),
  ]);
  let usage: { inputTokens: number; outputTokens: number } | undefined;
  const end = (status: SpawnRecord["status"], error?: string) => {
    record.status = status;
    // summed over its replies: the first, and one per agent_message
    if (usage) record.usage = addUsage(record.usage, usage);
    if (error !== undefined) record.error ??= error;
    record.endedAt = new Date().toISOString();
    return true;
  };
  if (!stored) return end("lost", "its session was deleted before it finished");
  if (held) return false;
  const state = stored.state;
  if (state.replyContext) {
    if (!state.replyContext.waitingFor || record.exposed) return false;
    const what = state.replyContext.waitingFor === "user_confirm" ? "a confirmation" : "an external result";
    return end(
      "paused",
      `it paused for ${what} nobody can give it; cancel it, or give its template a mode that does not ask`,
    );
  }
  const reply = state.context.findLast((msg) => msg.role === "assistant" && msg.finishedReason !== undefined);
  if (!reply) return false;
  usage = reply.usage;
  switch (reply.finishedReason) {
    case "error":
      return end("failed", reply.error?.message ?? "unknown error");
    case "interrupted":
      // Closed by recovery (it resumes) unless its parent asked it to stop (the reason is recorded).
      if (record.error === undefined) return false;
      record.result = finalText(reply);
      return end("cancelled");
    default: {
      const text = finalText(reply);
      record.result =
        reply.finishedReason === "exceed_max_iters"
          ? `[stopped at its iteration limit] ${text}`.trimEnd()
          : text;
      return end("completed");
    }
  }
}
