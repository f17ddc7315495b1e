import { type AgentEvent, createEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

/**
 * The log the outbox lives in: a session id no session can have (service session ids never contain
 * `~`), kept, trimmed and shared by replicas like any session's log.
 */
export const DELIVERY_LOG = "~spawn-deliveries";
const PENDING = "spawn_delivery";
const DONE = "spawn_delivery_done";
const PAGE = 1_000;

/** A sub-agent's outcome its parent has yet to read: the child session (`<parent>.sub_<n>`). */
export interface PendingDelivery {
  parentSessionId: string;
  childSessionId: string;
}

/**
 * The outbox of sub-agent outcomes, across replicas and restarts: an entry is logged *before* a
 * sub-agent's reply starts (a spawn, a message), a `done` entry once its parent has read the
 * outcome (or it became moot). So a process that dies between a sub-agent's end and its parent's
 * follow-up leaves the entry pending, and the next sweep (on any replica) completes the delivery.
 * The pending entries are the fold of the log (the newest entry per child wins). The log keeps the
 * backend's `maxEvents` newest entries.
 */
export class SpawnDeliveries {
  constructor(private readonly backend: Pick<ServiceBackend, "events">) {}

  pending(entry: PendingDelivery): Promise<void> {
    return this.#log(PENDING, entry);
  }

  done(entry: PendingDelivery): Promise<void> {
    return this.#log(DONE, entry);
  }

  /** The deliveries not yet done, oldest first. */
  async open(): Promise<PendingDelivery[]> {
    const open = new Map<string, PendingDelivery>();
    const events = this.backend.events;
    let after = Math.max(0, (await events.firstSeq(DELIVERY_LOG)) - 1);
    for (;;) {
      const page = await events.read(DELIVERY_LOG, after, PAGE);
      for (const { event } of page) {
        const entry = entryOf(event);
        if (!entry) continue;
        open.delete(entry.childSessionId);
        if (!entry.done)
          open.set(entry.childSessionId, {
            parentSessionId: entry.parentSessionId,
            childSessionId: entry.childSessionId,
          });
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    return [...open.values()];
  }

  async #log(name: string, entry: PendingDelivery): Promise<void> {
    const value = { parentSessionId: entry.parentSessionId, childSessionId: entry.childSessionId };
    await this.backend.events.append(DELIVERY_LOG, [createEvent("CUSTOM", { replyId: "", name, value })]);
  }
}

function entryOf(event: AgentEvent): (PendingDelivery & { done: boolean }) | undefined {
  if (event.type !== "CUSTOM" || (event.name !== PENDING && event.name !== DONE)) return undefined;
  const value = event.value as Partial<PendingDelivery> | undefined;
  if (typeof value?.parentSessionId !== "string" || typeof value.childSessionId !== "string")
    return undefined;
  return {
    parentSessionId: value.parentSessionId,
    childSessionId: value.childSessionId,
    done: event.name === DONE,
  };
}
