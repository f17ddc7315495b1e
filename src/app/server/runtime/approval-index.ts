import { newId } from "../../../message/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { OpenEntryLog } from "./open-entry-log.js";

/** The log the approvals index lives in (no session id contains `~`; see DEADLINE_LOG). */
export const APPROVAL_LOG = "~approver-asks";

/**
 * A pause of a reply that asks calls an approver policy naming users or roles may govern. `pause`
 * tells two pauses of one reply apart (each ask again after a vote is one), so a reader that closes
 * the pause it read never closes a newer one logged meanwhile.
 */
export interface ApproverPause {
  sessionId: string;
  replyId: string;
  pause: string;
}

/**
 * Which sessions have a paused reply that named approvers may answer, across every replica: an
 * entry is logged when a run of an agent with such a policy pauses on a confirmation, a `done` entry
 * once a reader finds that pause over (the reply no longer waits, or paused again since). What `GET /v1/approvals` reads instead of every
 * session. Like the deadline index it keeps the backend's `maxEvents` newest entries (older open
 * pauses fall out of the inbox, not out of reach: their confirm still works).
 */
export class ApprovalIndex {
  readonly #log: OpenEntryLog<ApproverPause>;

  constructor(backend: Pick<ServiceBackend, "events">) {
    this.#log = new OpenEntryLog(backend, {
      logId: APPROVAL_LOG,
      openName: "approver_pause",
      doneName: "approver_pause_done",
      parse: (value) => {
        const entry = value as Partial<ApproverPause> | undefined;
        if (
          typeof entry?.sessionId !== "string" ||
          typeof entry.replyId !== "string" ||
          typeof entry.pause !== "string"
        )
          return undefined;
        return { sessionId: entry.sessionId, replyId: entry.replyId, pause: entry.pause };
      },
      key: (entry) => `${entry.sessionId}\n${entry.replyId}\n${entry.pause}`,
    });
  }

  /** Logs a new pause of the reply. */
  add(sessionId: string, replyId: string): Promise<void> {
    return this.#log.open({ sessionId, replyId, pause: newId("pause") });
  }

  /** Closes the pauses read (a pause logged since has another `pause` and stays open). */
  async done(entries: readonly ApproverPause[]): Promise<void> {
    for (const entry of entries) await this.#log.done(entry);
  }

  /** The pauses not yet closed, in the order they were logged. */
  pending(): Promise<ApproverPause[]> {
    return this.#log.entries();
  }
}
