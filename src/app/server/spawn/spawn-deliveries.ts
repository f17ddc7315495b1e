import type { ServiceBackend } from "../backend/types.js";
import { OpenEntryLog } from "../runtime/open-entry-log.js";

/**
 * The log the outbox lives in: a session id no session can have (service session ids never contain
 * `~`), kept, trimmed and shared by replicas like any session's log.
 */
export const DELIVERY_LOG = "~spawn-deliveries";

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
 * The newest entry per child wins; the log keeps the backend's `maxEvents` newest entries.
 */
export class SpawnDeliveries {
  readonly #log: OpenEntryLog<PendingDelivery>;

  constructor(backend: Pick<ServiceBackend, "events">) {
    this.#log = new OpenEntryLog(backend, {
      logId: DELIVERY_LOG,
      openName: "spawn_delivery",
      doneName: "spawn_delivery_done",
      parse: (value) => {
        const entry = value as Partial<PendingDelivery> | undefined;
        if (typeof entry?.parentSessionId !== "string" || typeof entry.childSessionId !== "string")
          return undefined;
        return { parentSessionId: entry.parentSessionId, childSessionId: entry.childSessionId };
      },
      key: (entry) => entry.childSessionId,
    });
  }

  pending(entry: PendingDelivery): Promise<void> {
    return this.#log.open(copy(entry));
  }

  done(entry: PendingDelivery): Promise<void> {
    return this.#log.done(copy(entry));
  }

  /** The deliveries not yet done, oldest first. */
  open(): Promise<PendingDelivery[]> {
    return this.#log.entries();
  }
}

/** Only the two ids are stored, whatever else the caller's object carries. */
function copy(entry: PendingDelivery): PendingDelivery {
  return { parentSessionId: entry.parentSessionId, childSessionId: entry.childSessionId };
}
