import { type AgentEvent, createEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

/**
 * The log the deadline index lives in: a session id no session can have (service session ids never
 * contain `~`), so it is kept, trimmed and shared by replicas like any session's log.
 */
export const DEADLINE_LOG = "~pause-deadlines";
const SET = "pause_deadline";
const DONE = "pause_deadline_done";
const PAGE = 1_000;

/** A pause's deadline: the session and when its earliest ask expires (ISO 8601). */
export interface PauseDeadline {
  sessionId: string;
  expiresAt: string;
}

/**
 * Which sessions have a pause with a deadline, across every replica: an entry is logged when a run
 * pauses with asks that expire, a `done` entry once the deadline has been handled (or found moot).
 * The pending deadlines are the fold of the log. The log keeps the backend's `maxEvents` newest
 * entries: with more pauses with deadlines than that open at once, the oldest fall out of the index
 * (they still expire when their session next resumes).
 */
export class DeadlineIndex {
  constructor(private readonly backend: Pick<ServiceBackend, "events">) {}

  async add(entry: PauseDeadline): Promise<void> {
    await this.#log(SET, entry);
  }

  async done(entry: PauseDeadline): Promise<void> {
    await this.#log(DONE, entry);
  }

  /** The deadlines not yet handled, earliest first. */
  async pending(): Promise<PauseDeadline[]> {
    const open = new Map<string, PauseDeadline>();
    const events = this.backend.events;
    let after = Math.max(0, (await events.firstSeq(DEADLINE_LOG)) - 1);
    for (;;) {
      const page = await events.read(DEADLINE_LOG, after, PAGE);
      for (const { event } of page) {
        const entry = entryOf(event);
        if (!entry) continue;
        const key = `${entry.sessionId}\n${entry.expiresAt}`;
        if (entry.done) open.delete(key);
        else open.set(key, { sessionId: entry.sessionId, expiresAt: entry.expiresAt });
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    return [...open.values()].sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt));
  }

  async #log(name: string, entry: PauseDeadline): Promise<void> {
    const value = { sessionId: entry.sessionId, expiresAt: entry.expiresAt };
    await this.backend.events.append(DEADLINE_LOG, [createEvent("CUSTOM", { replyId: "", name, value })]);
  }
}

function entryOf(event: AgentEvent): (PauseDeadline & { done: boolean }) | undefined {
  if (event.type !== "CUSTOM" || (event.name !== SET && event.name !== DONE)) return undefined;
  const value = event.value as Partial<PauseDeadline> | undefined;
  if (typeof value?.sessionId !== "string" || typeof value.expiresAt !== "string") return undefined;
  return { sessionId: value.sessionId, expiresAt: value.expiresAt, done: event.name === DONE };
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
