import type { BusMessage, ServiceBus } from "./service-backend.js";

/**
 * In-process delivery of bus messages. Backends that span processes (Redis, PostgreSQL) publish
 * remotely and feed what they receive into `deliver`.
 */
export class LocalBus implements ServiceBus {
  readonly #listeners = new Map<string, Set<(message: BusMessage) => void>>();

  async publish(message: BusMessage): Promise<void> {
    this.deliver(message);
  }

  deliver(message: BusMessage): void {
    for (const listener of this.#listeners.get(message.sessionId) ?? []) listener(message);
  }

  subscribe(sessionId: string, listener: (message: BusMessage) => void): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) {
      set = new Set();
      this.#listeners.set(sessionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(sessionId) === set) this.#listeners.delete(sessionId);
    };
  }
}

/**
 * A bus message as sent to the other replicas, tagged with the sender (`from`), so the sender can
 * skip its own copy when the broker echoes it back (it delivered it locally already).
 */
export function encodeBusMessage(message: BusMessage, from: string): string {
  // Never the appended events an `events` message may carry: they are for this process only.
  // `from` first: the sender recognises its own echo by the prefix, without parsing it.
  const { sessionId, kind } = message;
  return JSON.stringify(
    kind === "interrupt" ? { from, sessionId, kind, reason: message.reason } : { from, sessionId, kind },
  );
}

/** The start of every message `encodeBusMessage` writes for sender `from`. */
export function busMessagePrefix(from: string): string {
  return `{"from":${JSON.stringify(from)},`;
}

/**
 * Parses a bus message received from another replica; undefined when it is not one, or when it is
 * this replica's own (`self`, the `from` it sends with).
 */
export function decodeBusMessage(text: string, self?: string): BusMessage | undefined {
  if (self !== undefined && text.startsWith(busMessagePrefix(self))) return undefined;
  try {
    const value = JSON.parse(text) as Partial<BusMessage> & { from?: unknown };
    if (typeof value.sessionId !== "string") return undefined;
    if (self !== undefined && value.from === self) return undefined;
    if (value.kind === "events") return { sessionId: value.sessionId, kind: "events" };
    if (value.kind === "interrupt")
      return { sessionId: value.sessionId, kind: "interrupt", reason: String(value.reason ?? "interrupted") };
    return undefined;
  } catch {
    return undefined;
  }
}
