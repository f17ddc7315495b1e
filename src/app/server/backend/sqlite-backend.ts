import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { AgentEvent } from "../../../event/index.js";
import { DEFAULT_SQLITE_PATH, SqliteStateStore } from "../../../state/index.js";
import { importDriver } from "../../../state/lazy-driver.js";
import { sqliteTurnBatch } from "../../../state/sqlite-turn-batch.js";
import { leaseOwner, ownerIsGone } from "./lease-owner.js";
import { LocalBus } from "./local-bus.js";
import { loggedRow } from "./logged-row.js";
import { pageRecords } from "./page-records.js";
import {
  type BackendOptions,
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_EVENTS,
  type LoggedEvent,
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

function schema(p: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
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
  const checkpointer = file === ":memory:" ? undefined : new WalCheckpointer(db, file);
  const p = options.prefix ?? "agentscope_";
  db.exec(schema(p));
  const store = new SqliteStateStore({ database: db });
  await store.init();
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
    insert: db.prepare<[string, number, string]>(
      `INSERT INTO ${p}events (session_id, seq, event) VALUES (?, ?, ?)`,
    ),
    trim: db.prepare<[string, number]>(`DELETE FROM ${p}events WHERE session_id = ? AND seq <= ?`),
    read: db.prepare<[string, number, number], { seq: number; event: string }>(
      `SELECT seq, event FROM ${p}events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    deleteEvents: db.prepare<[string]>(`DELETE FROM ${p}events WHERE session_id = ?`),
    createSession: db.prepare<[string, string, string, string | null, string]>(
      `INSERT OR IGNORE INTO ${p}sessions (session_id, owner, agent, title, created_at) VALUES (?, ?, ?, ?, ?)`,
    ),
    getSession: db.prepare<[string], RecordRow>(`SELECT * FROM ${p}sessions WHERE session_id = ?`),
    listSessions: db.prepare<[string, string, number], RecordRow>(
      `SELECT * FROM ${p}sessions WHERE owner = ? AND session_id > ? ORDER BY session_id LIMIT ?`,
    ),
    setTitle: db.prepare<[string, string]>(`UPDATE ${p}sessions SET title = ? WHERE session_id = ?`),
    deleteSession: db.prepare<[string]>(`DELETE FROM ${p}sessions WHERE session_id = ?`),
    getLease: db.prepare<[string], { owner: string; expires_at: number }>(
      `SELECT owner, expires_at FROM ${p}leases WHERE session_id = ?`,
    ),
    putLease: db.prepare<[string, string, number]>(
      `INSERT OR REPLACE INTO ${p}leases (session_id, owner, expires_at) VALUES (?, ?, ?)`,
    ),
    renewLease: db.prepare<[number, string, string]>(
      `UPDATE ${p}leases SET expires_at = ? WHERE session_id = ? AND owner = ?`,
    ),
    dropLease: db.prepare<[string, string]>(`DELETE FROM ${p}leases WHERE session_id = ? AND owner = ?`),
  };

  const appendOne = (sessionId: string, events: AgentEvent[]): LoggedEvent[] => {
    let seq = q.last.get(sessionId)?.seq ?? 0;
    const added = events.map((event) => {
      seq += 1;
      const json = JSON.stringify(event);
      q.insert.run(sessionId, seq, json);
      return { seq, event, json };
    });
    if (seq > max) q.trim.run(sessionId, seq - max);
    return added;
  };
  // Appends, lease renewals (those due on the same tick of the runtime's renewal timer) and releases
  // made in one loop turn each share one transaction: what ends, or renews, many runs at once costs
  // one commit.
  type LeaseCall = { sessionId: string; owner: string };
  const appends = sqliteTurnBatch(db, ({ sessionId, events }: { sessionId: string; events: AgentEvent[] }) =>
    appendOne(sessionId, events),
  );
  const renewals = sqliteTurnBatch(
    db,
    ({ sessionId, owner }: LeaseCall) => q.renewLease.run(Date.now() + ttl, sessionId, owner).changes === 1,
  );
  const releases = sqliteTurnBatch(db, ({ sessionId, owner }: LeaseCall) => {
    q.dropLease.run(sessionId, owner);
  });

  const takeLease = db.transaction((sessionId: string, owner: string): boolean => {
    const row = q.getLease.get(sessionId);
    if (row && row.expires_at > Date.now() && !ownerIsGone(row.owner)) return false;
    q.putLease.run(sessionId, owner, Date.now() + ttl);
    return true;
  });

  const local = new Set<string>();
  return {
    kind: "sqlite",
    lockTtlMs: ttl,
    store,
    pollMs: 250,
    bus: new LocalBus(),
    events: {
      append: async (sessionId, events) => (events.length === 0 ? [] : appends.call({ sessionId, events })),
      read: async (sessionId, after, limit) =>
        q.read.all(sessionId, after, limit).map((row) => loggedRow(sessionId, row)),
      lastSeq: async (sessionId) => q.last.get(sessionId)?.seq ?? 0,
      last: async (sessionId) => {
        const row = q.newest.get(sessionId);
        return row && loggedRow(sessionId, row);
      },
      firstSeq: async (sessionId) => q.first.get(sessionId)?.seq ?? 0,
      delete: async (sessionId) => void q.deleteEvents.run(sessionId),
    },
    locks: {
      async acquire(sessionId): Promise<RunLease | undefined> {
        if (local.has(sessionId)) return undefined;
        const owner = leaseOwner();
        if (!takeLease.immediate(sessionId, owner)) return undefined;
        local.add(sessionId);
        let released = false;
        return {
          sessionId,
          renew: async () => !released && renewals.call({ sessionId, owner }),
          release: async () => {
            if (released) return;
            released = true;
            local.delete(sessionId);
            await releases.call({ sessionId, owner });
          },
        };
      },
      async isHeld(sessionId) {
        if (local.has(sessionId)) return true;
        const row = q.getLease.get(sessionId);
        return row !== undefined && row.expires_at > Date.now() && !ownerIsGone(row.owner);
      },
    },
    sessions: {
      create: async (r) =>
        q.createSession.run(r.sessionId, r.owner, r.agent, r.title ?? null, r.createdAt).changes === 1,
      get: async (sessionId) => {
        const row = q.getSession.get(sessionId);
        return row && toRecord(row);
      },
      list: async (owner, { limit, cursor }) =>
        pageRecords(q.listSessions.all(owner, cursor ?? "", limit + 1).map(toRecord), limit),
      setTitle: async (sessionId, title) => q.setTitle.run(title, sessionId).changes === 1,
      delete: async (sessionId) => void q.deleteSession.run(sessionId),
    },
    async close() {
      await store.close();
      await checkpointer?.close();
      db.close();
    },
  };
}
