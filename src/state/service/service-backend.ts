import type { AgentEvent } from "../../event/index.js";
import type { AgentState } from "../agent-state.js";
import type { AgentStateStore } from "../store.js";

/** An event as the log keeps it: `seq` increases by one per event within a session (the SSE `id:`). */
export interface LoggedEvent {
  seq: number;
  event: AgentEvent;
  /**
   * `JSON.stringify(event)`, when the log has it at hand (the text a SQL row or Redis entry holds,
   * or the memory log's copy): followers send it as is instead of serialising the event again.
   */
  json?: string;
}

/**
 * The durable per-session event log. Appends for one session come from the single run holding its
 * lock, so `seq` is gap-free and increasing; reads return events with `seq > after` in order.
 * Older events beyond the retention bound are dropped (`firstSeq` says where the log now starts).
 */
export interface EventLog {
  /**
   * Logs the events; a backend shared by replicas also notifies the others, in the same round trip.
   * With `lease` (what a run passes) the append is fenced: it happens only if `lease` still holds the
   * session (its generation is the session's lease and has not expired), checked in the same atomic
   * step as the write; otherwise nothing is written and it rejects with a `FencedError`.
   */
  append(sessionId: string, events: AgentEvent[], lease?: RunLease): Promise<LoggedEvent[]>;
  read(sessionId: string, after: number, limit: number): Promise<LoggedEvent[]>;
  /** The seq of the newest event (0 when none). */
  lastSeq(sessionId: string): Promise<number>;
  /**
   * The newest event (undefined when none), its seq and the event in one read. Optional: without it
   * `newestEvent` asks `lastSeq`, then `read`s that one event.
   */
  last?(sessionId: string): Promise<LoggedEvent | undefined>;
  /** The seq of the oldest kept event (0 when none). */
  firstSeq(sessionId: string): Promise<number>;
  delete(sessionId: string): Promise<void>;
}

/**
 * A held run lock. `renew` extends it (false = lost: stop the run; a lease that has expired cannot be
 * renewed); `release` is idempotent. `generation` is its fencing token: every acquire of a session
 * gets a larger one than any before (a counter of the store that only grows), and the store accepts a
 * write made under a lease (`EventLog.append`, `endRun`, `checkpoint` with it) only while that
 * generation holds the session, unexpired.
 */
export interface RunLease {
  readonly sessionId: string;
  readonly generation: number;
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/** A session whose run lease was abandoned: it expired unreleased, or its process on this host is gone. */
export interface AbandonedLease {
  sessionId: string;
  /** The abandoned lease's generation (0 when the store cannot say). */
  generation: number;
}

/** One run per session at a time, across every replica sharing the backend. */
export interface RunLocks {
  /** The lease, or undefined when another run holds the session. */
  acquire(sessionId: string): Promise<RunLease | undefined>;
  isHeld(sessionId: string): Promise<boolean>;
  /**
   * Optional: renews several leases of this backend in one round trip (a runtime renews those that
   * fall due together: at 10,000 runs, thousands a second). Answers, for each lease in order, whether
   * it is still held, as its `renew` would; a lease released, or not handed out by this backend, is
   * not. Without it the runtime calls each lease's `renew`.
   */
  renewMany?(leases: readonly RunLease[]): Promise<boolean[]>;
  /**
   * Optional: sessions (of every user) whose lease was abandoned: expired without being released, or
   * taken by a process on this host that no longer exists. At most `limit`, oldest expiry first. The
   * recovery sweeper takes each one's lease (one winner per session) and closes its cut-off reply.
   * Without it only followers, `status` and the next run notice a dead run.
   */
  abandoned?(limit: number): Promise<AbandonedLease[]>;
}

/**
 * What a run does as it ends, in this order: it logs its last events, saves its state (compare-and-set),
 * logs its end events (REPLY_END, or the pause), and releases its lease. The end events are logged even
 * when the save fails (as when a checkpoint fails): the reply did end.
 */
export interface RunEnd {
  sessionId: string;
  /** Events not yet logged; they come before the save. */
  events: AgentEvent[];
  /** The final save, when the run asked for one. */
  save?: { state: AgentState; expectedVersion: number };
  /** Logged after the save. */
  endEvents: AgentEvent[];
  lease: RunLease;
}

/**
 * A checkpoint: the run's events not yet logged, then its state saved (compare-and-set). With `lease`
 * it is fenced as a whole (see `RunLease`): a stale lease writes nothing and gets a `FencedError`.
 */
export interface RunCheckpoint {
  sessionId: string;
  events: AgentEvent[];
  save: { state: AgentState; expectedVersion: number };
  lease?: RunLease;
}

/** What `endRun` and `checkpoint` answer. */
export interface RunEndResult {
  /** Both lists of events as logged, in order. */
  logged: LoggedEvent[];
  /** The saved version; undefined when there was no save or it failed (`saveError`). */
  version?: number;
  /** Why the save failed (a StateConflictError, a state no store can hold). */
  saveError?: Error;
}

/** Who owns a session and which agent answers in it. */
export interface SessionRecord {
  sessionId: string;
  owner: string;
  agent: string;
  title?: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface SessionRecordPage {
  sessions: SessionRecord[];
  nextCursor?: string;
}

/** The service's index of sessions per user. `create` fails (false) when the id is taken. */
export interface SessionDirectory {
  create(record: SessionRecord): Promise<boolean>;
  get(sessionId: string): Promise<SessionRecord | undefined>;
  /** The owner's sessions, ordered by session id. */
  list(owner: string, options: { limit: number; cursor?: string }): Promise<SessionRecordPage>;
  /** Sets the session's title; false when there is no such session. */
  setTitle(sessionId: string, title: string): Promise<boolean>;
  delete(sessionId: string): Promise<void>;
}

/**
 * What a replica tells the others (and itself) about a session. An `events` message published right
 * after an append may carry what the append returned (`events`): followers in the publishing process
 * take them from the message instead of reading them back from the log. Other replicas receive only
 * the notice (the events are never sent over the wire).
 */
export type BusMessage =
  | {
      sessionId: string;
      kind: "events";
      events?: readonly LoggedEvent[];
      /**
       * Set (in this process only) on the message with a run's end events (REPLY_END, REQUIRE_*),
       * published once the run has freed its session: a follower that ends with that run ends after
       * these events, in the same write, without waiting for the run's `done` to settle.
       */
      runEnded?: boolean;
    }
  | { sessionId: string; kind: "interrupt"; reason: string };

/**
 * Cross-replica notifications; delivery is best effort (followers also re-read the log on a timer).
 * Every `events` message follows an append, and an append tells the other replicas itself (in the
 * same script or statement), so `publish` delivers an `events` message in this process only.
 */
export interface ServiceBus {
  publish(message: BusMessage): Promise<void>;
  /** Calls `listener` for every message about `sessionId` (from any replica); returns unsubscribe. */
  subscribe(sessionId: string, listener: (message: BusMessage) => void): () => void;
}

/**
 * Everything the service keeps, on one store backend (memory, SQLite, Redis or PostgreSQL).
 * `pollMs`: how often a follower re-reads the log when no notification can reach it (other processes
 * on one SQLite file); undefined when notifications always arrive.
 */
export interface ServiceBackend {
  readonly kind: string;
  readonly store: AgentStateStore;
  readonly events: EventLog;
  readonly locks: RunLocks;
  readonly sessions: SessionDirectory;
  readonly bus: ServiceBus;
  /**
   * Optional: a run's end (`RunEnd`) in one round trip and atomically, so a follower hears of the last
   * events and the end events together. Without it the run does each step in turn. Does not tell
   * followers in this process (the caller publishes what was logged). Fenced by its lease: when the
   * lease no longer holds the session nothing is written (not even the release) and it rejects with a
   * `FencedError`.
   */
  endRun?(end: RunEnd): Promise<RunEndResult>;
  /**
   * Optional: a checkpoint (`RunCheckpoint`) in one round trip and atomically. The events are logged
   * even when the save fails (`saveError`). Without it the run appends, then saves.
   */
  checkpoint?(checkpoint: RunCheckpoint): Promise<RunEndResult>;
  readonly pollMs?: number;
  /**
   * Optional: the store's clock (ms since the epoch), the one its leases expire by. Replicas judge
   * pause deadlines by it, so their own clocks' drift does not matter. Without it (a store on this
   * machine: memory, SQLite) the process's clock is the store's.
   */
  now?(): Promise<number>;
  /** How long a run lease lives without renewal (runs renew it every third of that); undefined: in-process locks. */
  readonly lockTtlMs?: number;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** Events kept per session (default 10,000); older ones are dropped. */
  maxEventsPerSession?: number;
  /** How long a run lock lives without renewal (default 15 s); runs renew it every third of that. */
  lockTtlMs?: number;
  /** Prefix of tables (SQL) or keys (Redis). */
  prefix?: string;
}

export const DEFAULT_MAX_EVENTS = 10_000;
export const DEFAULT_LOCK_TTL_MS = 15_000;
