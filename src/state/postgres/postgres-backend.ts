import { hostname } from "node:os";
import type { Client, Pool } from "pg";
import { newId } from "../../message/index.js";
import { importDriver } from "../lazy-driver.js";
import { redactUrl } from "../redact-url.js";
import { parseServerUrl } from "../server-url.js";
import { FencedError } from "../service/fenced-error.js";
import { type HeldLease, HeldLeases } from "../service/held-leases.js";
import { leaseOwner, ownerIsGone } from "../service/lease-owner.js";
import { decodeBusMessage, encodeBusMessage, LocalBus } from "../service/local-bus.js";
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
  type RunEndResult,
  type RunLease,
  type ServiceBackend,
  type SessionRecord,
} from "../service/service-backend.js";
import type { BackendModule } from "../store-family.js";
import { postgresLogBatch } from "./postgres-log-batch.js";
import { PostgresStateStore } from "./postgres-store.js";

function schema(p: string): string {
  return `SELECT pg_advisory_xact_lock(hashtext('agentscope service ${p}'));
CREATE TABLE IF NOT EXISTS ${p}events (session_id text COLLATE "C" NOT NULL, seq bigint NOT NULL, event text NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS ${p}sessions (session_id text COLLATE "C" PRIMARY KEY, owner text NOT NULL, agent text NOT NULL, title text, created_at text NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}sessions_owner ON ${p}sessions (owner, session_id);
CREATE TABLE IF NOT EXISTS ${p}leases (session_id text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL);
ALTER TABLE ${p}leases ADD COLUMN IF NOT EXISTS generation bigint NOT NULL DEFAULT 0;
CREATE SEQUENCE IF NOT EXISTS ${p}lease_generation;`;
}

// biome-ignore lint/suspicious/noExplicitAny: pg row
function toRecord(row: any): SessionRecord {
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
 * PostgreSQL: the event log, session directory and run leases are tables next to the state table; a
 * lease is a row with an expiry that its holder renews; replicas notify each other with
 * LISTEN/NOTIFY on `<prefix>bus` (one listening connection per replica).
 */
export async function postgresBackend(url: string, options: BackendOptions = {}): Promise<ServiceBackend> {
  const pg = await importDriver(() => import("pg"), "pg", "the PostgreSQL service backend");
  const p = options.prefix ?? "agentscope_";
  const ttl = options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS;
  const max = options.maxEventsPerSession ?? DEFAULT_MAX_EVENTS;
  const pool: Pool = new pg.default.Pool({ connectionString: url });
  pool.on("error", () => {}); // an idle connection dropped: the next query reports it
  try {
    await pool.query(schema(p));
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(
      `the PostgreSQL service backend cannot prepare ${redactUrl(url)}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const store = new PostgresStateStore({ client: pool, table: `${p}state` });
  await store.init();
  const channel = `${p}bus`;
  const local = new LocalBus();
  // This replica's name on the bus: its own notifications come back from PostgreSQL and are skipped.
  const replica = newId("replica");
  let listener: Client | undefined;
  let closed = false;
  const listen = async (): Promise<void> => {
    const client = new pg.default.Client({ connectionString: url });
    client.on("error", () => {});
    client.on("notification", (n) => {
      const message = n.payload ? decodeBusMessage(n.payload, replica) : undefined;
      if (message) local.deliver(message);
    });
    client.on("end", () => {
      if (!closed) setTimeout(() => void listen().catch(() => {}), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN "${channel}"`);
    listener = client;
  };
  await listen();

  const heldLeases = new HeldLeases();
  // the log writes of one loop turn (appends, run ends, checkpoints), of every session, in one statement
  const log = postgresLogBatch(
    pool,
    { events: `${p}events`, leases: `${p}leases`, state: store.table },
    channel,
  );

  /**
   * Takes a free or expired lease with the next generation; undefined when the session is held. The
   * row is locked FOR UPDATE first, so the takeover waits for any fenced write in flight (which holds
   * it FOR KEY SHARE) and every later one sees the new generation.
   */
  async function take(sessionId: string, owner: string): Promise<number | undefined> {
    const taken = await pool.query(
      `WITH held AS (SELECT 1 FROM ${p}leases WHERE session_id = $1 FOR UPDATE)
       INSERT INTO ${p}leases (session_id, owner, expires_at, generation)
       SELECT $1, $2, now() + $3 * interval '1 millisecond', nextval('${p}lease_generation')
       FROM (SELECT count(*) FROM held) AS locked
       ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at,
         generation = EXCLUDED.generation
       WHERE ${p}leases.expires_at < now() RETURNING generation`,
      [sessionId, owner, ttl],
    );
    return taken.rowCount === 1 ? Number(taken.rows[0].generation) : undefined;
  }

  /** A fenced write's answer: refused, it is the lease's FencedError (and the lease renews no more). */
  const fenced = (held: HeldLease | undefined, refused: boolean, sessionId: string) => {
    if (!held || !refused) return;
    held.released = true;
    throw new FencedError(sessionId, held.generation);
  };

  const trim = async (sessionId: string, last: number) => {
    if (last > max)
      await pool.query(`DELETE FROM ${p}events WHERE session_id = $1 AND seq <= $2`, [sessionId, last - max]);
  };

  /**
   * A run's end (with its lease) or a checkpoint (without) as one write of the log batch: its events,
   * its save, its end events and its lease's release in one statement, with the other sessions'.
   */
  const commit = async (run: RunWrite): Promise<RunEndResult> => {
    const { sessionId } = run;
    const held = run.lease && heldLeases.of(run.lease);
    const { events, json } = writtenEvents(run);
    const { save, saveError } = await prepareSave(run.save, ({ state, expectedVersion }) =>
      store.saveInput(sessionId, state, { expectedVersion }),
    );
    const written = await log.write({
      sessionId,
      json,
      notice: encodeBusMessage({ sessionId, kind: "events" }, replica),
      ...(save
        ? {
            save: {
              state: save.state,
              expectedVersion: save.expectedVersion,
              head: save.head,
              base: save.base,
            },
          }
        : {}),
      ...(held && run.releases ? { leaseOwner: held.owner } : {}),
      ...(held ? { generation: held.generation } : {}),
    });
    fenced(held, written.fenced, sessionId);
    if (held && run.releases) held.released = true;
    const logged = loggedAfter(written.before, events, json);
    await trim(sessionId, written.before + events.length);
    return runEndResult(logged, save && (() => save.result(written.saved, written.actual)), saveError);
  };

  return {
    kind: "postgres",
    lockTtlMs: ttl,
    store,
    async now() {
      const { rows } = await pool.query(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms",
      );
      return Math.floor(Number(rows[0].ms));
    },
    endRun: (end) => commit(runEndWrite(end)),
    checkpoint: (checkpoint) => commit(checkpointWrite(checkpoint)),
    bus: {
      async publish(message) {
        local.deliver(message);
        // Every append has told the other replicas already (in its own statement).
        if (message.kind !== "events")
          await pool.query("SELECT pg_notify($1, $2)", [channel, encodeBusMessage(message, replica)]);
      },
      subscribe: (sessionId, fn) => local.subscribe(sessionId, fn),
    },
    events: {
      async append(sessionId, events, lease) {
        if (events.length === 0) return [];
        const held = lease && heldLeases.of(lease);
        const json = events.map((event) => JSON.stringify(event));
        const notice = encodeBusMessage({ sessionId, kind: "events" }, replica);
        const written = await log.write({
          sessionId,
          json,
          notice,
          ...(held ? { generation: held.generation } : {}),
        });
        fenced(held, written.fenced, sessionId);
        const { before } = written;
        await trim(sessionId, before + events.length);
        return loggedAfter(before, events, json);
      },
      async read(sessionId, after, limit) {
        const { rows } = await pool.query(
          `SELECT seq, event FROM ${p}events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
          [sessionId, after, limit],
        );
        return rows.map((row) => loggedRow(sessionId, row));
      },
      async lastSeq(sessionId) {
        const { rows } = await pool.query(`SELECT MAX(seq) AS seq FROM ${p}events WHERE session_id = $1`, [
          sessionId,
        ]);
        return Number(rows[0]?.seq ?? 0);
      },
      async last(sessionId) {
        const { rows } = await pool.query(
          `SELECT seq, event FROM ${p}events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`,
          [sessionId],
        );
        return rows[0] && loggedRow(sessionId, rows[0]);
      },
      async firstSeq(sessionId) {
        const { rows } = await pool.query(`SELECT MIN(seq) AS seq FROM ${p}events WHERE session_id = $1`, [
          sessionId,
        ]);
        return Number(rows[0]?.seq ?? 0);
      },
      async delete(sessionId) {
        await pool.query(`DELETE FROM ${p}events WHERE session_id = $1`, [sessionId]);
      },
    },
    locks: {
      async acquire(sessionId): Promise<RunLease | undefined> {
        const owner = leaseOwner();
        let generation = await take(sessionId, owner);
        if (generation === undefined) {
          const { rows } = await pool.query(`SELECT owner FROM ${p}leases WHERE session_id = $1`, [
            sessionId,
          ]);
          const holder = rows[0]?.owner as string | undefined;
          if (!holder || !ownerIsGone(holder)) return undefined;
          await pool.query(`DELETE FROM ${p}leases WHERE session_id = $1 AND owner = $2`, [
            sessionId,
            holder,
          ]);
          generation = await take(sessionId, owner);
          if (generation === undefined) return undefined;
        }
        const held: HeldLease = { owner, generation, released: false };
        const lease: RunLease = {
          sessionId,
          generation,
          async renew() {
            if (held.released) return false;
            // an expired lease is lost, never renewed (its writes are refused already)
            const result = await pool.query(
              `UPDATE ${p}leases SET expires_at = now() + $3 * interval '1 millisecond' WHERE session_id = $1 AND owner = $2 AND expires_at > now()`,
              [sessionId, owner, ttl],
            );
            return result.rowCount === 1;
          },
          async release() {
            if (held.released) return;
            held.released = true;
            await pool.query(`DELETE FROM ${p}leases WHERE session_id = $1 AND owner = $2`, [
              sessionId,
              owner,
            ]);
          },
        };
        return heldLeases.add(lease, held);
      },
      // one statement for all of them; a lease answers true when its row (session and owner) came back
      renewMany: (leases) =>
        heldLeases.renewMany(leases, async (toRenew) => {
          const { rows } = await pool.query(
            `UPDATE ${p}leases AS l SET expires_at = now() + $3 * interval '1 millisecond'
             FROM unnest($1::text[], $2::text[]) AS r(session_id, owner)
             WHERE l.session_id = r.session_id AND l.owner = r.owner AND l.expires_at > now() RETURNING l.owner`,
            [toRenew.map(({ lease }) => lease.sessionId), toRenew.map(({ owner }) => owner), ttl],
          );
          const renewed = new Set(rows.map((row) => row.owner as string));
          return toRenew.map(({ owner }) => renewed.has(owner));
        }),
      async isHeld(sessionId) {
        const { rows } = await pool.query(
          `SELECT owner FROM ${p}leases WHERE session_id = $1 AND expires_at > now()`,
          [sessionId],
        );
        // A lease left by a process on this host that died is not held (as acquire treats it).
        return rows.length > 0 && !ownerIsGone(rows[0].owner);
      },
      // expired leases, and those of this host's other processes that are gone (the only ones that can
      // be abandoned unexpired); the table holds only leases not released, so it stays small
      async abandoned(limit) {
        const { rows } = await pool.query(
          `SELECT session_id, owner, generation, expires_at <= now() AS expired FROM ${p}leases
           WHERE expires_at <= now() OR (starts_with(owner, $1) AND NOT starts_with(owner, $2))
           ORDER BY expires_at LIMIT $3`,
          [`${hostname()}:`, `${hostname()}:${process.pid}:`, limit],
        );
        return rows
          .filter((row) => row.expired === true || ownerIsGone(row.owner))
          .map((row) => ({ sessionId: row.session_id as string, generation: Number(row.generation) }));
      },
    },
    sessions: {
      async create(r) {
        const result = await pool.query(
          `INSERT INTO ${p}sessions (session_id, owner, agent, title, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [r.sessionId, r.owner, r.agent, r.title ?? null, r.createdAt],
        );
        return result.rowCount === 1;
      },
      async get(sessionId) {
        const { rows } = await pool.query(`SELECT * FROM ${p}sessions WHERE session_id = $1`, [sessionId]);
        return rows[0] ? toRecord(rows[0]) : undefined;
      },
      async list(owner, { limit, cursor }) {
        const { rows } = await pool.query(
          `SELECT * FROM ${p}sessions WHERE owner = $1 AND session_id > $2 ORDER BY session_id LIMIT $3`,
          [owner, cursor ?? "", limit + 1],
        );
        return pageRecords(rows.map(toRecord), limit);
      },
      async setTitle(sessionId, title) {
        const result = await pool.query(`UPDATE ${p}sessions SET title = $1 WHERE session_id = $2`, [
          title,
          sessionId,
        ]);
        return result.rowCount === 1;
      },
      async delete(sessionId) {
        await pool.query(`DELETE FROM ${p}sessions WHERE session_id = $1`, [sessionId]);
      },
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
      await store.close();
      await pool.end();
    },
  };
}

/** The PostgreSQL family's backend, on the server of a `postgres://` URL. */
export const openBackend: BackendModule["openBackend"] = (url, options) =>
  postgresBackend(parseServerUrl(url, "the PostgreSQL service backend"), options);
