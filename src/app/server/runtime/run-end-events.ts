import type { AgentEvent } from "../../../event/index.js";

/**
 * Events that may be a run's last: the reply ended, or it paused for a human or an external executor.
 * The run logs one only after its final save, then frees the session.
 */
export const RUN_END_EVENTS: ReadonlySet<AgentEvent["type"]> = new Set<AgentEvent["type"]>([
  "REPLY_END",
  "REQUIRE_USER_CONFIRM",
  "REQUIRE_EXTERNAL_EXECUTION",
]);
