import { hostname } from "node:os";
import { resolve } from "node:path";
import type { AgentEvent } from "../../event/index.js";
import { FencedError } from "../service/fenced-error.js";
import { type HeldLease, HeldLeases } from "../service/held-leases.js";
import { globEscape, leaseOwner, ownerIsGone } from "../service/lease-owner.js";
import { LocalBus } from "../service/local-bus.js";
import { loggedAfter, loggedRow } from "../service/logged-row.js";
import { pageRecords } from "../service/page-records.js";
import {
  checkpointWrite,
  prepareSave,
  type RunWrite,
  runEndResult,
  runEndWrite,
  writtenEvents,
} from "../service/run-end-save.js";
import {
  type BackendOptions,
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_EVENTS,
  type LoggedEvent,
  type RunEndResult,
  type RunLease,
  type ServiceBackend,
  type SessionRecord,
} from "../service/service-backend.js";
import type { BackendModule } from "../store-family.js";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver.js";
import type { SqliteArg, SqliteWrite, SqliteWriteResult } from "./sqlite-executor.js";
import { adoptUnprefixedStates, keptStatesUnprefixed } from "./sqlite-legacy-state.js";
import { DEFAULT_SQLITE_PATH, SqliteStateStore, sqliteFileOf } from "./sqlite-store.js";
import { SqliteWriter } from "./sqlite-writer.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

interface RecordRow {
  session_id: string;
  owner: string;
  agent: string;
  title: string | null;
  created_at: string;
}

function toRecord(row: RecordRow): SessionRecord {
  const record: SessionRecord = {
    sessionId: row.session_id,
    owner: row.owner,
    agent: row.agent,
    createdAt: row.created_at,
  };
  if (row.title !== null) record.title = row.title;
  return record;
}

/**
 * The events table is a rowid table: rows go in at the end of the table, in the order they are
 * written, and only the (session_id, seq) key index takes each session's place. As a WITHOUT ROWID
 * table keyed by session (as earlier versions made it), every commit of many sessions' events
 * rewrote a table page per session, with each whole row on it: twice the writer's time for the same
 * inserts. A file made by an earlier version keeps that table; every statement here works on both.
 */
function schema(p: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS ${p}sessions (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, agent TEXT NOT NULL, title TEXT, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}sessions_owner ON ${p}sessions (owner, session_id);
CREATE TABLE IF NOT EXISTS ${p}leases (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL, generation INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS ${p}lease_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);`;
}

/**
 * A leases table made before leases had a generation (their fencing token) gets the column; a lease
 * row already there is generation 0, which no run holding a lease of this version has.
 */
function addGenerationColumn(db: SqliteDatabase, p: string): void {
  const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(${p}leases)`).all();
  if (columns.some((column) => column.name === "generation")) return;
  try {
    db.exec(`ALTER TABLE ${p}leases ADD COLUMN generation INTEGER NOT NULL DEFAULT 0`);
  } catch (error) {
    // another process on the file added it first
    if (!/duplicate column/i.test((error as Error).message)) throw error;
  }
}

/**
 * The embedded default: state, event log, session directory and run leases in one SQLite file
 * (`.agentscope/state.db`). Runs are locked in-process and by a lease row, so two processes on one
 * file never run the same session; a lease left by a killed process on this host is taken over at
 * once. Followers in other processes see new events by polling (`pollMs`).
 */
export async function sqliteBackend(
  path: string = DEFAULT_SQLITE_PATH,
  options: BackendOptions = {},
): Promise<ServiceBackend> {
  const file = path === ":memory:" ? path : resolve(path);
  const db = await openSqlite(file, "the SQLite service backend");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  const p = options.prefix ?? "agentscope_";
  const adoptStates = keptStatesUnprefixed(db, p);
  db.exec(schema(p));
  addGenerationColumn(db, p);
  // Every write runs in a worker thread with its own connection (for a file): the commits of 10,000
  // streams' events, leases and states never hold up this thread. Reads stay here.
  const writer = new SqliteWriter(db, { workerFile: file });
  const checkpointer = file === ":memory:" ? undefined : new WalCheckpointer(writer, db.driver, file);
  // The state table takes the prefix like the others (`agentscope_state` for the default prefix, the
  // state store's own default: files made before keep their table).
  const store = new SqliteStateStore({ database: db, writer, table: `${p}state` });
  await store.init();
  if (adoptStates) adoptUnprefixedStates(db, p);
  const max = options.maxEventsPerSession ?? DEFAULT_MAX_EVENTS;
  const ttl = options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;

  const q = {
    last: db.prepare<[string], { seq: number | null }>(
      `SELECT MAX(seq) AS seq FROM ${p}events WHERE session_id = ?`,
    ),
    newest: db.prepare<[string], { seq: number; event: string }>(
      `SELECT seq, event FROM ${p}events WHERE session_id = ? ORDER BY seq DESC LIMIT 1`,
    ),
    first: db.prepare<[string], { seq: number | null }>(
      `SELECT MIN(seq) AS seq FROM ${p}events WHERE session_id = ?`,
    ),
    read: db.prepare<[string, number, number], { seq: number; event: string }>(
      `SELECT seq, event FROM ${p}events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    getSession: db.prepare<[string], RecordRow>(`SELECT * FROM ${p}sessions WHERE session_id = ?`),
    listSessions: db.prepare<[string, string, number], RecordRow>(
      `SELECT * FROM ${p}sessions WHERE owner = ? AND session_id > ? ORDER BY session_id LIMIT ?`,
    ),
    getLease: db.prepare<[string], { owner: string; expires_at: number }>(
      `SELECT owner, expires_at FROM ${p}leases WHERE session_id = ?`,
    ),
    /** now, this host's owners (GLOB), this process's owners (GLOB), limit: see `abandoned` */
    abandoned: db.prepare<
      [number, string, string, number],
      { session_id: string; owner: string; expires_at: number; generation: number }
    >(
      `SELECT session_id, owner, expires_at, generation FROM ${p}leases
       WHERE expires_at <= ? OR (owner GLOB ? AND owner NOT GLOB ?) ORDER BY expires_at LIMIT ?`,
    ),
  };
  const w = {
    /**
     * session_id: the session's last seq (0 for none), read in the transaction that appends after it,
     * as a number the way `append` computes it (a damaged seq stored as text counts by its digits).
     */
    lastSeq: writer.prepare(`SELECT COALESCE(MAX(seq), 0) + 0 FROM ${p}events WHERE session_id = ?`),
    /**
     * session_id, session_id, event: the event at the session's next seq. Not `INSERT ... SELECT ...
     * RETURNING`, which costs SQLite two temporary tables per event (the SELECT from the table it
     * inserts into is materialised first, and RETURNING's rows are kept in another).
     */
    append: writer.prepare(
      `INSERT INTO ${p}events (session_id, seq, event) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${p}events WHERE session_id = ?), ?)`,
    ),
    trim: writer.prepare(`DELETE FROM ${p}events WHERE session_id = ? AND seq <= ?`),
    deleteEvents: writer.prepare(`DELETE FROM ${p}events WHERE session_id = ?`),
    createSession: writer.prepare(
      `INSERT OR IGNORE INTO ${p}sessions (session_id, owner, agent, title, created_at) VALUES (?, ?, ?, ?, ?)`,
    ),
    setTitle: writer.prepare(`UPDATE ${p}sessions SET title = ? WHERE session_id = ?`),
    deleteSession: writer.prepare(`DELETE FROM ${p}sessions WHERE session_id = ?`),
    /** session, owner, expires_at: answers the new lease's generation (null: the session is held) */
    newLease: writer.prepare(
      `INSERT INTO ${p}leases (session_id, owner, expires_at, generation) VALUES (?, ?, ?, (SELECT value FROM ${p}lease_generation WHERE id = 1)) ON CONFLICT (session_id) DO NOTHING RETURNING generation`,
    ),
    /**
     * owner, expires_at, then the session and the lease seen expired or abandoned (compare-and-set);
     * answers the new generation (null: taken or renewed meanwhile)
     */
    takeOverLease: writer.prepare(
      `UPDATE ${p}leases SET owner = ?, expires_at = ?, generation = (SELECT value FROM ${p}lease_generation WHERE id = 1) WHERE session_id = ? AND owner = ? AND expires_at = ? RETURNING generation`,
    ),
    /** expires_at, session, owner, now: an expired lease is lost, never renewed */
    renewLease: writer.prepare(
      `UPDATE ${p}leases SET expires_at = ? WHERE session_id = ? AND owner = ? AND expires_at > ?`,
    ),
    /**
     * session, generation, now: the fence of a run's write, the guard of its call (SqliteWrite.guard),
     * so the call's writes happen only while the lease holds the session, in the same transaction.
     */
    fence: writer.prepare(
      `SELECT EXISTS (SELECT 1 FROM ${p}leases WHERE session_id = ? AND generation = ? AND expires_at > ?)`,
    ),
    /** the store's lease counter, one more for every acquire: the next lease's generation */
    nextGeneration: writer.prepare(
      `INSERT INTO ${p}lease_generation (id, value) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET value = value + 1`,
    ),
    dropLease: writer.prepare(`DELETE FROM ${p}leases WHERE session_id = ? AND owner = ?`),
  };
  const local = new Set<string>();
  const heldLeases = new HeldLeases();
  const changes = async (statement: number, ...args: SqliteArg[]): Promise<number> =>
    (await writer.run(statement, ...args)) as number;

  // A call's writes run one after the other in one transaction of the only writing connection, so
  // the events appended after a `lastSeq` read take the seqs that follow it, in order.
  const lastSeqWrite = (sessionId: string) => ({ statement: w.lastSeq, args: [sessionId] });
  /** The guard that fences a run's call (none without a lease): `[]` or the one write. */
  const fenceWrites = (held: HeldLease | undefined, sessionId: string): SqliteWrite[] =>
    held ? [{ statement: w.fence, args: [sessionId, held.generation, Date.now()], guard: true }] : [];
  /**
   * Throws the FencedError of a call whose guard refused it. The lease is dropped here only (never
   * its row: an expired one is how the sweeper finds the cut-off reply), so this process can take the
   * session again.
   */
  const fenced = (
    held: HeldLease | undefined,
    answered: SqliteWriteResult | undefined,
    sessionId: string,
  ) => {
    if (!held || answered) return;
    if (!held.released) local.delete(sessionId);
    held.released = true;
    throw new FencedError(sessionId, held.generation);
  };
  const appendWrites = (sessionId: string, jsons: string[]) =>
    jsons.map((json) => ({ statement: w.append, args: [sessionId, sessionId, json] }));
  const append = async (
    sessionId: string,
    events: AgentEvent[],
    lease?: RunLease,
  ): Promise<LoggedEvent[]> => {
    const held = lease && heldLeases.of(lease);
    const jsons = events.map((event) => JSON.stringify(event));
    const fence = fenceWrites(held, sessionId);
    const results = await writer.write([
      ...fence,
      lastSeqWrite(sessionId),
      ...appendWrites(sessionId, jsons),
    ]);
    fenced(held, results[0], sessionId);
    const added = loggedAfter(Number(results[fence.length]), events, jsons);
    const seq = added[added.length - 1]!.seq;
    if (seq > max) await changes(w.trim, sessionId, seq - max);
    return added;
  };
  // A lease is taken by compare-and-set against the row read here: another process that takes or
  // renews it in between makes the write change nothing.
  // Either way the store's lease counter goes up in the same transaction: the generation it answers.
  const takeLease = async (sessionId: string, owner: string): Promise<number | undefined> => {
    const row = q.getLease.get(sessionId);
    const expiresAt = Date.now() + ttl;
    if (row && row.expires_at > Date.now() && !ownerIsGone(row.owner)) return undefined;
    const take = row
      ? { statement: w.takeOverLease, args: [owner, expiresAt, sessionId, row.owner, row.expires_at] }
      : { statement: w.newLease, args: [sessionId, owner, expiresAt] };
    const [, generation] = await writer.write([{ statement: w.nextGeneration, args: [] }, take]);
    return generation === null || generation === undefined ? undefined : Number(generation);
  };
  /**
   * A run's end (with its lease) or a checkpoint (without) in one transaction of the writer: its
   * events, its save, its end events, its lease.
   */
  const commit = async (run: RunWrite): Promise<RunEndResult> => {
    const { sessionId } = run;
    const held = run.lease && heldLeases.of(run.lease);
    const { events, json: jsons } = writtenEvents(run);
    const { save, saveError } = await prepareSave(run.save, ({ state, expectedVersion }) =>
      store.saveWrite(sessionId, state, { expectedVersion }),
    );
    const count = run.events.length;
    const fence = fenceWrites(held, sessionId);
    const releases = held && run.releases;
    const results = await writer.write([
      ...fence,
      lastSeqWrite(sessionId),
      ...appendWrites(sessionId, jsons.slice(0, count)),
      ...(save ? [save.write] : []),
      ...appendWrites(sessionId, jsons.slice(count)),
      ...(releases ? [{ statement: w.dropLease, args: [sessionId, held.owner] }] : []),
    ]);
    fenced(held, results[0], sessionId);
    if (releases) {
      held.released = true;
      local.delete(sessionId);
    }
    const at = fence.length;
    const logged = loggedAfter(Number(results[at]), events, jsons);
    const last = logged.at(-1)?.seq ?? 0;
    if (last > max) await changes(w.trim, sessionId, last - max);
    // the save's result comes after the lastSeq read and the events before it
    return runEndResult(logged, save && (() => save.result(results[at + 1 + count]!)), saveError);
  };

  return {
    kind: "sqlite",
    lockTtlMs: ttl,
    store,
    pollMs: 250,
    bus: new LocalBus(),
    endRun: (end) => commit(runEndWrite(end)),
    checkpoint: (checkpoint) => commit(checkpointWrite(checkpoint)),
    events: {
      append: async (sessionId, events, lease) =>
        events.length === 0 ? [] : append(sessionId, events, lease),
      read: async (sessionId, after, limit) =>
        q.read.all(sessionId, after, limit).map((row) => loggedRow(sessionId, row)),
      lastSeq: async (sessionId) => q.last.get(sessionId)?.seq ?? 0,
      last: async (sessionId) => {
        const row = q.newest.get(sessionId);
        return row && loggedRow(sessionId, row);
      },
      firstSeq: async (sessionId) => q.first.get(sessionId)?.seq ?? 0,
      delete: async (sessionId) => void (await changes(w.deleteEvents, sessionId)),
    },
    locks: {
      async acquire(sessionId): Promise<RunLease | undefined> {
        if (local.has(sessionId)) return undefined;
        local.add(sessionId); // held here while it is being taken
        const owner = leaseOwner();
        let generation: number | undefined;
        try {
          generation = await takeLease(sessionId, owner);
        } finally {
          if (generation === undefined) local.delete(sessionId);
        }
        if (generation === undefined) return undefined;
        const held: HeldLease = { owner, generation, released: false };
        const lease: RunLease = {
          sessionId,
          generation,
          renew: async () =>
            !held.released &&
            (await changes(w.renewLease, Date.now() + ttl, sessionId, owner, Date.now())) === 1,
          release: async () => {
            if (held.released) return;
            held.released = true;
            local.delete(sessionId);
            await changes(w.dropLease, sessionId, owner);
          },
        };
        return heldLeases.add(lease, held);
      },
      // one call of the writer (one transaction) for all of them, each lease's UPDATE answering for it
      renewMany: (leases) =>
        heldLeases.renewMany(leases, async (toRenew) => {
          const now = Date.now();
          const renewed = await writer.write(
            toRenew.map(({ lease, owner }) => ({
              statement: w.renewLease,
              args: [now + ttl, lease.sessionId, owner, now],
            })),
          );
          return renewed.map((changed) => changed === 1);
        }),
      async isHeld(sessionId) {
        if (local.has(sessionId)) return true;
        const row = q.getLease.get(sessionId);
        return row !== undefined && row.expires_at > Date.now() && !ownerIsGone(row.owner);
      },
      // expired leases, and those of this host's other processes that are gone (the only ones that can
      // be abandoned unexpired); this process's own leases are never read
      async abandoned(limit) {
        const now = Date.now();
        const host = `${globEscape(hostname())}:*`;
        const self = `${globEscape(hostname())}:${process.pid}:*`;
        return q.abandoned
          .all(now, host, self, limit)
          .filter((row) => !(row.expires_at > now) || ownerIsGone(row.owner))
          .map((row) => ({ sessionId: row.session_id, generation: Number(row.generation) }));
      },
    },
    sessions: {
      create: async (r) =>
        (await changes(w.createSession, r.sessionId, r.owner, r.agent, r.title ?? null, r.createdAt)) === 1,
      get: async (sessionId) => {
        const row = q.getSession.get(sessionId);
        return row && toRecord(row);
      },
      list: async (owner, { limit, cursor }) =>
        pageRecords(q.listSessions.all(owner, cursor ?? "", limit + 1).map(toRecord), limit),
      setTitle: async (sessionId, title) => (await changes(w.setTitle, title, sessionId)) === 1,
      delete: async (sessionId) => void (await changes(w.deleteSession, sessionId)),
    },
    async close() {
      await store.close();
      await writer.close();
      await checkpointer?.close();
      db.close();
    },
  };
}

/** The SQLite family's backend, in the file of a `sqlite:` URL (the store's file). */
export const openBackend: BackendModule["openBackend"] = (url, options) =>
  sqliteBackend(sqliteFileOf(url), options);
