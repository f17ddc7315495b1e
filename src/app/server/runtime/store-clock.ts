import type { ApproverOptions } from "../../../permission/index.js";
import type { ServiceBackend } from "../backend/types.js";

/**
 * The store's clock, read synchronously: `sync` asks the store (`ServiceBackend.now`) and keeps its
 * offset from this process's clock; `now` is this process's clock plus that offset. Without a store
 * clock (memory, SQLite: the store is on this machine) the offset stays 0.
 */
export class StoreClock {
  #offset = 0;

  constructor(private readonly backend: Pick<ServiceBackend, "now">) {}

  /** The store's time now (ms since the epoch), and the offset kept for `now`. */
  async sync(): Promise<number> {
    if (!this.backend.now) return Date.now();
    const before = Date.now();
    const store = await this.backend.now();
    // the store read its clock somewhere during the round trip: take the middle
    this.#offset = store - Math.round((before + Date.now()) / 2);
    return store;
  }

  now(): number {
    return Date.now() + this.#offset;
  }
}

/**
 * An agent's options whose approver policies set and judge their deadlines by `clock` (the store's),
 * unless they name a clock of their own; options without policies are returned as they are.
 */
export function withClock<T extends { approvers?: ApproverOptions }>(options: T, clock: StoreClock): T {
  if (!options.approvers || options.approvers.now) return options;
  return { ...options, approvers: { ...options.approvers, now: () => clock.now() } };
}
