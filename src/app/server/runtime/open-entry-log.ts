import { createEvent } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

const PAGE = 1_000;

/** What an `OpenEntryLog` stores: the log's id, its two event names, and how to read and key an entry. */
export interface OpenEntryLogSpec<T> {
  /** A session id no session can have (service session ids never contain `~`). */
  logId: string;
  /** The CUSTOM event name that opens an entry, and the one that closes it. */
  openName: string;
  doneName: string;
  /** The entry in a stored event's value, or undefined when the value is not one (it is skipped). */
  parse(value: unknown): T | undefined;
  /** Entries with the same key are one entry: the newest open or done wins. */
  key(entry: T): string;
}

/**
 * A set of open entries shared by every replica, kept as a log in the event store: an entry is
 * logged open, then done; the open entries are the fold of the log. The log is kept, trimmed and
 * shared like any session's, so it keeps the backend's `maxEvents` newest entries.
 */
export class OpenEntryLog<T> {
  constructor(
    private readonly backend: Pick<ServiceBackend, "events">,
    private readonly spec: OpenEntryLogSpec<T>,
  ) {}

  open(entry: T): Promise<void> {
    return this.#log(this.spec.openName, entry);
  }

  done(entry: T): Promise<void> {
    return this.#log(this.spec.doneName, entry);
  }

  /** The entries not yet done, in the order they were (last) opened. */
  async entries(): Promise<T[]> {
    const { logId, openName, doneName, parse, key } = this.spec;
    const open = new Map<string, T>();
    const events = this.backend.events;
    let after = Math.max(0, (await events.firstSeq(logId)) - 1);
    for (;;) {
      const page = await events.read(logId, after, PAGE);
      for (const { event } of page) {
        if (event.type !== "CUSTOM" || (event.name !== openName && event.name !== doneName)) continue;
        const entry = parse(event.value);
        if (!entry) continue;
        open.delete(key(entry));
        if (event.name === openName) open.set(key(entry), entry);
      }
      if (page.length < PAGE) break;
      after = page.at(-1)!.seq;
    }
    return [...open.values()];
  }

  async #log(name: string, entry: T): Promise<void> {
    await this.backend.events.append(this.spec.logId, [
      createEvent("CUSTOM", { replyId: "", name, value: entry }),
    ]);
  }
}
