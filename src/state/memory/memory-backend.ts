import type { AgentEvent } from "../../event/index.js";
import { FencedError } from "../service/fenced-error.js";
import { type HeldLease, HeldLeases } from "../service/held-leases.js";
import { LocalBus } from "../service/local-bus.js";
import { pageRecords } from "../service/page-records.js";
import { checkpointWrite, type RunWrite, runEndResult, runEndWrite } from "../service/run-end-save.js";
import {
  type BackendOptions,
  DEFAULT_MAX_EVENTS,
  type EventLog,
  type LoggedEvent,
  type RunEndResult,
  type RunLease,
  type RunLocks,
  type ServiceBackend,
  type SessionDirectory,
  type SessionRecord,
} from "../service/service-backend.js";
import type { AgentStateStore } from "../store.js";
import type { BackendModule } from "../store-family.js";
import { InMemoryStateStore } from "./memory-store.js";

/** A logged event as the memory log keeps it: its JSON, parsed into `event` on the first read. */
interface StoredEvent {
  seq: number;
  json: string;
  event?: AgentEvent;
}

/** A stored event as read: its JSON parsed into the log's own copy on the first read. */
function logged(stored: StoredEvent): LoggedEvent {
  stored.event ??= JSON.parse(stored.json) as AgentEvent;
  return stored as LoggedEvent;
}

class MemoryEventLog implements EventLog {
  readonly #logs = new Map<string, { next: number; events: StoredEvent[] }>();
  constructor(
    private readonly max: number,
    private readonly locks: MemoryRunLocks,
  ) {}

  async append(sessionId: string, events: AgentEvent[], lease?: RunLease): Promise<LoggedEvent[]> {
    if (lease) this.locks.fence(lease);
    return this.appendNow(sessionId, events);
  }

  /** The append itself, in this tick (a caller that checked its fence first stays atomic). */
  appendNow(sessionId: string, events: AgentEvent[]): LoggedEvent[] {
    if (events.length === 0) return [];
    let log = this.#logs.get(sessionId);
    if (!log) {
      log = { next: 1, events: [] };
      this.#logs.set(sessionId, log);
    }
    // The log keeps the JSON (what a persistent log would give back, and what every follower sends:
    // one serialisation per event, not one per follower); reads parse it into the log's own copy.
    const added = events.map((event) => ({ seq: log.next++, event, json: JSON.stringify(event) }));
    for (const { seq, json } of added) log.events.push({ seq, json });
    if (log.events.length > this.max) log.events.splice(0, log.events.length - this.max);
    return added;
  }

  async read(sessionId: string, after: number, limit: number): Promise<LoggedEvent[]> {
    const events = this.#logs.get(sessionId)?.events;
    if (!events || events.length === 0) return [];
    // seqs are consecutive: the first one after `after` is found by arithmetic, not by a scan
    const start = Math.max(0, after + 1 - events[0]!.seq);
    return events.slice(start, start + limit).map(logged);
  }

  async lastSeq(sessionId: string): Promise<number> {
    return (this.#logs.get(sessionId)?.next ?? 1) - 1;
  }

  async last(sessionId: string): Promise<LoggedEvent | undefined> {
    const stored = this.#logs.get(sessionId)?.events.at(-1);
    return stored && logged(stored);
  }

  async firstSeq(sessionId: string): Promise<number> {
    return this.#logs.get(sessionId)?.events[0]?.seq ?? 0;
  }

  async delete(sessionId: string): Promise<void> {
    this.#logs.delete(sessionId);
  }
}

/** In-process run locks: the generation holding each session (from one counter that only grows). */
export class MemoryRunLocks implements RunLocks {
  readonly #held = new Map<string, number>();
  readonly #leases = new HeldLeases();
  #generation = 0;

  async acquire(sessionId: string): Promise<RunLease | undefined> {
    if (this.#held.has(sessionId)) return undefined;
    const generation = ++this.#generation;
    this.#held.set(sessionId, generation);
    const held: HeldLease = { owner: sessionId, generation, released: false };
    const lease: RunLease = {
      sessionId,
      generation,
      renew: async () => !held.released,
      release: async () => {
        if (!held.released && this.#held.get(sessionId) === generation) this.#held.delete(sessionId);
        held.released = true;
      },
    };
    return this.#leases.add(lease, held);
  }

  /**
   * The memory backend's fence, checked in the same tick as the write it guards: throws FencedError
   * unless `lease` (one of this backend's) holds its session now.
   */
  fence(lease: RunLease): HeldLease {
    const held = this.#leases.of(lease);
    if (held.released || this.#held.get(lease.sessionId) !== held.generation)
      throw new FencedError(lease.sessionId, held.generation);
    return held;
  }

  /** Nothing expires in one process: each lease of this backend is held until released. */
  renewMany(leases: readonly RunLease[]): Promise<boolean[]> {
    return this.#leases.renewMany(leases, async (toRenew) => toRenew.map(() => true));
  }

  async isHeld(sessionId: string): Promise<boolean> {
    return this.#held.has(sessionId);
  }
}

class MemorySessionDirectory implements SessionDirectory {
  readonly #records = new Map<string, SessionRecord>();

  async create(record: SessionRecord): Promise<boolean> {
    if (this.#records.has(record.sessionId)) return false;
    this.#records.set(record.sessionId, { ...record });
    return true;
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const record = this.#records.get(sessionId);
    return record && { ...record };
  }

  async list(owner: string, options: { limit: number; cursor?: string }) {
    const mine = [...this.#records.values()]
      .filter((r) => r.owner === owner && (options.cursor === undefined || r.sessionId > options.cursor))
      .sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1));
    return pageRecords(mine.slice(0, options.limit + 1), options.limit);
  }

  async setTitle(sessionId: string, title: string): Promise<boolean> {
    const record = this.#records.get(sessionId);
    if (record) record.title = title;
    return record !== undefined;
  }

  async delete(sessionId: string): Promise<void> {
    this.#records.delete(sessionId);
  }
}

/** Everything in this process's memory: for tests and `agentscope chat` without a store. */
export function memoryBackend(options: BackendOptions & { store?: AgentStateStore } = {}): ServiceBackend {
  const store = options.store ?? new InMemoryStateStore();
  const locks = new MemoryRunLocks();
  const events = new MemoryEventLog(options.maxEventsPerSession ?? DEFAULT_MAX_EVENTS, locks);
  /**
   * A run's end or a checkpoint, fenced: the lease is checked in the tick that logs the events and
   * starts the save (the memory store's compare-and-set runs in that tick too), and again before the
   * end events, so a lease that no longer holds the session writes nothing more.
   */
  const write = async (run: RunWrite): Promise<RunEndResult> => {
    const { sessionId, lease } = run;
    if (lease) locks.fence(lease);
    const logged = events.appendNow(sessionId, run.events);
    const saving =
      run.save && store.save(sessionId, run.save.state, { expectedVersion: run.save.expectedVersion });
    const result = await runEndResult(logged, saving && (async () => (await saving).version), undefined);
    if (run.endEvents.length > 0) {
      if (lease) locks.fence(lease);
      result.logged = [...logged, ...events.appendNow(sessionId, run.endEvents)];
    }
    return result;
  };
  return {
    kind: "memory",
    store,
    events,
    locks,
    checkpoint: (checkpoint) => write(checkpointWrite(checkpoint)),
    endRun: async (end) => {
      const result = await write(runEndWrite(end));
      await end.lease.release();
      return result;
    },
    sessions: new MemorySessionDirectory(),
    bus: new LocalBus(),
    close: () => store.close(),
  };
}

/** The memory family's backend (`memory:`): one of its own, each time. */
export const openBackend: BackendModule["openBackend"] = async (_url, options) => memoryBackend(options);
