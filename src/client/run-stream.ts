import type { AgentEvent } from "../event/types.js";
import { type ConnectionState, EventStream } from "./event-stream.js";

export interface StreamOptions {
  signal?: AbortSignal;
  onConnectionChange?: (state: ConnectionState) => void;
}

/** The events of one run: from its first event to its REPLY_END or the pause that asks the client. */
export class RunStream extends EventStream {
  #replyId: string | undefined;

  /** The reply's id, once the service has accepted the request (undefined before). */
  get replyId(): string | undefined {
    return this.#replyId;
  }

  /** @internal */
  setReplyId(replyId: string): void {
    this.#replyId = replyId;
  }
}

/** A sub-agent's pause (it pauses the whole run, with no pause event of the top-level reply). */
export function isSubagentPause(event: AgentEvent): boolean {
  return (
    event.source?.includes("/") === true &&
    (event.type === "REQUIRE_USER_CONFIRM" || event.type === "REQUIRE_EXTERNAL_EXECUTION")
  );
}

/**
 * Events after which a run's stream ends: the top-level reply finished, or it waits for the client.
 * One top-level reply runs per session at a time, so its id need not match (a confirmation routed
 * to a sub-agent's reply resumes the parent's); pass `replyId` to require it.
 */
export function endsRun(event: AgentEvent, replyId?: string): boolean {
  if (event.source?.includes("/") || (replyId !== undefined && event.replyId !== replyId)) return false;
  return (
    event.type === "REPLY_END" ||
    event.type === "REQUIRE_USER_CONFIRM" ||
    event.type === "REQUIRE_EXTERNAL_EXECUTION"
  );
}
