import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { AgentEvent } from "../../../event/index.js";
import { DEFAULT_SQLITE_PATH, SqliteStateStore } from "../../../state/index.js";
import { importDriver } from "../../../state/lazy-driver.js";
import type { SqliteArg } from "../../../state/sqlite-executor.js";
import { SqliteWriter } from "../../../state/sqlite-writer.js";
import { type HeldLease, HeldLeases } from "./held-leases.js";
import { leaseOwner, ownerIsGone } from "./lease-owner.js";
import { LocalBus } from "./local-bus.js";
import { loggedAfter, loggedRow } from "./logged-row.js";
import { pageRecords } from "./page-records.js";
import { checkpointWrite, prepareSave, type RunWrite, runEndResult, writtenEvents } from "./run-end-save.js";
import { adoptUnprefixedStates, keptStatesUnprefixed } from "./sqlite-legacy-state.js";
import {
  type BackendOptions,
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_EVENTS,
  type LoggedEvent,
  type RunEndResult,
  type RunLease,
  type ServiceBackend,
  type SessionRecord,
} from "./types.js";
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
CREATE TABLE IF NOT EXISTS ${p}leases (session_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL);`;
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
  const driver = await importDriver(
    () => import("better-sqlite3"),
    "better-sqlite3",
    "the SQLite service backend",
  );
  const file = path === ":memory:" ? path : resolve(path);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db: BetterSqlite3.Database = new driver.default(file);
  db.pragma("busy_timeout = 5000");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const p = options.prefix ?? "agentscope_";
  const adoptStates = keptStatesUnprefixed(db, p);
  db.exec(schema(p));
  // Every write runs in a worker thread with its own connection (for a file): the commits of 10,000
  // streams' events, leases and states never hold up this thread. Reads stay here.
  const writer = new SqliteWriter(db, { workerFile: file });
  const checkpointer = file === ":memory:" ? undefined : new WalCheckpointer(writer, file);
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
    newLease: writer.prepare(
      `INSERT INTO ${p}leases (session_id, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
    ),
    /** owner, expires_at, then the session and the lease seen expired or abandoned (compare-and-set) */
    takeOverLease: writer.prepare(
      `UPDATE ${p}leases SET owner = ?, expires_at = ? WHERE session_id = ? AND owner = ? AND expires_at = ?`,
    ),
    renewLease: writer.prepare(`UPDATE ${p}leases SET expires_at = ? WHERE session_id = ? AND owner = ?`),
    dropLease: writer.prepare(`DELETE FROM ${p}leases WHERE session_id = ? AND owner = ?`),
  };
  const changes = async (statement: number, ...args: SqliteArg[]): Promise<number> =>
    (await writer.run(statement, ...args)) as number;

  // A call's writes run one after the other in one transaction of the only writing connection, so
  // the events appended after a `lastSeq` read take the seqs that follow it, in order.
  const lastSeqWrite = (sessionId: string) => ({ statement: w.lastSeq, args: [sessionId] });
  const appendWrites = (sessionId: string, jsons: string[]) =>
    jsons.map((json) => ({ statement: w.append, args: [sessionId, sessionId, json] }));
  const append = async (sessionId: string, events: AgentEvent[]): Promise<LoggedEvent[]> => {
    const jsons = events.map((event) => JSON.stringify(event));
    const [lastSeq] = await writer.write([lastSeqWrite(sessionId), ...appendWrites(sessionId, jsons)]);
    const added = loggedAfter(Number(lastSeq), events, jsons);
    const seq = added[added.length - 1]!.seq;
    if (seq > max) await changes(w.trim, sessionId, seq - max);
    return added;
  };
  // A lease is taken by compare-and-set against the row read here: another process that takes or
  // renews it in between makes the write change nothing.
  const takeLease = async (sessionId: string, owner: string): Promise<boolean> => {
    const row = q.getLease.get(sessionId);
    const expiresAt = Date.now() + ttl;
    if (!row) return (await changes(w.newLease, sessionId, owner, expiresAt)) === 1;
    if (row.expires_at > Date.now() && !ownerIsGone(row.owner)) return false;
    return (await changes(w.takeOverLease, owner, expiresAt, sessionId, row.owner, row.expires_at)) === 1;
  };

  const local = new Set<string>();
  const heldLeases = new HeldLeases();
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
    const results = await writer.write([
      lastSeqWrite(sessionId),
      ...appendWrites(sessionId, jsons.slice(0, count)),
      ...(save ? [save.write] : []),
      ...appendWrites(sessionId, jsons.slice(count)),
      ...(held ? [{ statement: w.dropLease, args: [sessionId, held.owner] }] : []),
    ]);
    if (held) {
      held.released = true;
      local.delete(sessionId);
    }
    const logged = loggedAfter(Number(results[0]), events, jsons);
    const last = logged.at(-1)?.seq ?? 0;
    if (last > max) await changes(w.trim, sessionId, last - max);
    // the save's result comes after the lastSeq read and the events before it
    return runEndResult(logged, save && (() => save.result(results[1 + count]!)), saveError);
  };

  return {
    kind: "sqlite",
    lockTtlMs: ttl,
    store,
    pollMs: 250,
    bus: new LocalBus(),
    endRun: commit,
    checkpoint: (checkpoint) => commit(checkpointWrite(checkpoint)),
    events: {
      append: async (sessionId, events) => (events.length === 0 ? [] : append(sessionId, events)),
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
        let taken = false;
        try {
          taken = await takeLease(sessionId, owner);
        } finally {
          if (!taken) local.delete(sessionId);
        }
        if (!taken) return undefined;
        const held: HeldLease = { owner, released: false };
        const lease: RunLease = {
          sessionId,
          renew: async () =>
            !held.released && (await changes(w.renewLease, Date.now() + ttl, sessionId, owner)) === 1,
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
          const expiresAt = Date.now() + ttl;
          const renewed = await writer.write(
            toRenew.map(({ lease, owner }) => ({
              statement: w.renewLease,
              args: [expiresAt, lease.sessionId, owner],
            })),
          );
          return renewed.map((changed) => changed === 1);
        }),
      async isHeld(sessionId) {
        if (local.has(sessionId)) return true;
        const row = q.getLease.get(sessionId);
        return row !== undefined && row.expires_at > Date.now() && !ownerIsGone(row.owner);
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
