import type { AgentEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { OpenEntryLog } from "./open-entry-log.js";

/**
 * The log the deadline index lives in: a session id no session can have (service session ids never
 * contain `~`), so it is kept, trimmed and shared by replicas like any session's log.
 */
export const DEADLINE_LOG = "~pause-deadlines";
/** A pause's deadline: the session and when its earliest ask expires (ISO 8601). */
export interface PauseDeadline {
  sessionId: string;
  expiresAt: string;
}

/**
 * Which sessions have a pause with a deadline, across every replica: an entry is logged when a run
 * pauses with asks that expire, a `done` entry once the deadline has been handled (or found moot).
 * The log keeps the backend's `maxEvents` newest entries: with more pauses with deadlines than that
 * open at once, the oldest fall out of the index (they still expire when their session next resumes).
 */
export class DeadlineIndex {
  readonly #log: OpenEntryLog<PauseDeadline>;

  constructor(backend: Pick<ServiceBackend, "events">) {
    this.#log = new OpenEntryLog(backend, {
      logId: DEADLINE_LOG,
      openName: "pause_deadline",
      doneName: "pause_deadline_done",
      parse: (value) => {
        const entry = value as Partial<PauseDeadline> | undefined;
        if (typeof entry?.sessionId !== "string" || typeof entry.expiresAt !== "string") return undefined;
        return { sessionId: entry.sessionId, expiresAt: entry.expiresAt };
      },
      key: (entry) => `${entry.sessionId}\n${entry.expiresAt}`,
    });
  }

  add(entry: PauseDeadline): Promise<void> {
    return this.#log.open({ sessionId: entry.sessionId, expiresAt: entry.expiresAt });
  }

  done(entry: PauseDeadline): Promise<void> {
    return this.#log.done({ sessionId: entry.sessionId, expiresAt: entry.expiresAt });
  }

  /** The deadlines not yet handled, earliest first. */
  async pending(): Promise<PauseDeadline[]> {
    const open = await this.#log.entries();
    return open.sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt));
  }
}

/** The earliest deadline among a pause's end events (REQUIRE_USER_CONFIRM's `expiresAt`), if any. */
export function earliestDeadline(endEvents: readonly AgentEvent[]): string | undefined {
  let earliest: string | undefined;
  for (const event of endEvents) {
    if (event.type !== "REQUIRE_USER_CONFIRM") continue;
    for (const call of event.toolCalls) {
      if (call.expiresAt && (!earliest || Date.parse(call.expiresAt) < Date.parse(earliest)))
        earliest = call.expiresAt;
    }
  }
  return earliest;
}
