import type { Pool } from "pg";
import { LoopTurnBatch } from "../loop-turn-batch.js";
import type { PgSave } from "./postgres-store.js";

/**
 * One session's write to the log: its events' JSON and the notice for other replicas; for a run's end
 * or a checkpoint also its save (compare-and-set: the encoded state and the version it expects, 0 for
 * a new session) and the owner of the lease it releases. `generation` fences the write: it happens
 * only while the session's lease row has that generation, unexpired.
 */
export interface LogWrite {
  sessionId: string;
  json: string[];
  notice: string;
  /** A snapshot or a patch of the state (see PgSave). */
  save?: PgSave;
  leaseOwner?: string;
  generation?: number;
}

/** What a write answers: the seq before its first event, and for a save what the statement saw. */
export interface LogWritten {
  /** The fence refused it (its lease no longer holds the session): nothing of it was written. */
  fenced: boolean;
  before: number;
  /** The version the save wrote; null when it lost its compare-and-set (or there was none). */
  saved: number | null;
  /** The version stored before the statement (for the conflict's report). */
  actual: number | null;
}

/** Statements in flight at most: the writes of one replica on two of PostgreSQL's processes. */
const STATEMENTS_IN_FLIGHT = 2;

/**
 * Every log write of this replica made in one turn of the event loop (appends, run ends, checkpoints
 * of every session) as one statement: a query each cost a round trip, a parse and a plan, thousands
 * a second at 10,000 streams. Data-modifying CTEs number each session's events after its last seq
 * (in the order of the calls), save the states (compare-and-set), release the leases and send the
 * notices; all of one statement, so a crash cannot split a run's end. A fenced write (one with a
 * lease generation) joins on its lease row, locked FOR KEY SHARE, so a replica that takes the session
 * over (which locks the row FOR UPDATE first) waits for the statement, and a statement after the
 * takeover sees the new generation and writes nothing of it; renewals (plain UPDATEs of the expiry)
 * do not conflict with that lock. STATEMENTS_IN_FLIGHT at a
 * time, the busier the replica the more each carries; a statement that writes a session another one
 * in flight writes waits for it (two on two connections could both read its last seq). A session
 * written twice in one turn goes in a second statement after the first.
 */
export function postgresLogBatch(
  pool: Pool,
  tables: { events: string; leases: string; state: string },
  channel: string,
): { write(write: LogWrite): Promise<LogWritten> } {
  const { events, leases, state } = tables;
  const text = `WITH calls AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $9::bigint[], $8::text[], $10::text[], $11::text[])
        WITH ORDINALITY AS c(session_id, state, expected, owner, generation, notice, head, base, k)),
    fence AS (
      SELECT l.session_id FROM ${leases} AS l JOIN calls ON l.session_id = calls.session_id
      WHERE l.generation = calls.generation AND l.expires_at > now() FOR KEY SHARE OF l),
    ok AS (
      SELECT * FROM calls
      WHERE calls.generation IS NULL OR calls.session_id IN (SELECT session_id FROM fence)),
    ev AS (SELECT k, ev, ord FROM unnest($5::bigint[], $6::text[]) WITH ORDINALITY AS e(k, ev, ord)),
    last AS (
      SELECT calls.k, COALESCE((SELECT MAX(seq) FROM ${events} x WHERE x.session_id = calls.session_id), 0) AS s
      FROM calls),
    added AS (
      INSERT INTO ${events} (session_id, seq, event)
      SELECT ok.session_id, last.s + row_number() OVER (PARTITION BY ok.k ORDER BY ev.ord), ev.ev
      FROM ev JOIN ok ON ok.k = ev.k JOIN last ON last.k = ok.k),
    inserted AS (
      INSERT INTO ${state} (session_id, version, state, updated_at, head, base)
      SELECT session_id, 1, state::jsonb, now(), head, 1 FROM ok WHERE state IS NOT NULL AND expected = 0
      ON CONFLICT (session_id) DO NOTHING RETURNING session_id, version),
    updated AS (
      UPDATE ${state} AS t SET version = t.version + 1, state = ok.state::jsonb, updated_at = now(),
        head = ok.head, base = t.version + 1
      FROM ok WHERE ok.state IS NOT NULL AND ok.expected > 0 AND ok.base IS NULL
        AND t.session_id = ok.session_id AND t.version = ok.expected
      RETURNING t.session_id, t.version),
    unpatched AS (
      DELETE FROM ${state}_patches AS p USING updated
      WHERE p.session_id = updated.session_id AND p.version <= updated.version),
    patched AS (
      UPDATE ${state} AS t SET version = t.version + 1, head = ok.head, updated_at = now()
      FROM ok WHERE ok.state IS NOT NULL AND ok.expected > 0 AND ok.base IS NOT NULL
        AND t.session_id = ok.session_id AND t.version = ok.expected AND t.head = ok.base
      RETURNING t.session_id, t.version),
    patches AS (
      INSERT INTO ${state}_patches (session_id, version, patch)
      SELECT patched.session_id, patched.version, ok.state FROM patched JOIN ok ON ok.session_id = patched.session_id),
    dropped AS (
      DELETE FROM ${leases} AS l USING ok
      WHERE ok.owner IS NOT NULL AND l.session_id = ok.session_id AND l.owner = ok.owner),
    notice AS (SELECT pg_notify($7, ok.notice) FROM ok WHERE ok.notice IS NOT NULL)
    SELECT calls.k, last.s, NOT EXISTS (SELECT 1 FROM ok WHERE ok.k = calls.k) AS fenced,
      CASE WHEN calls.state IS NULL THEN NULL WHEN calls.expected = 0
        THEN (SELECT version FROM inserted WHERE inserted.session_id = calls.session_id)
        WHEN calls.base IS NULL THEN (SELECT version FROM updated WHERE updated.session_id = calls.session_id)
        ELSE (SELECT version FROM patched WHERE patched.session_id = calls.session_id) END AS saved,
      (SELECT v.version FROM ${state} AS v WHERE v.session_id = calls.session_id) AS actual
    FROM calls JOIN last ON last.k = calls.k, (SELECT count(*) FROM notice) AS told`;

  /** The statement each session was last written in, while it runs. */
  const writing = new Map<string, Promise<Answer[]>>();
  /**
   * One statement, after the statements in flight that write any of its sessions (so that a session's
   * writes never race for its last seq, and keep their order).
   */
  const run = (writes: LogWrite[]): Promise<Answer[]> => {
    const earlier = new Set<Promise<Answer[]>>();
    for (const write of writes) {
      const pending = writing.get(write.sessionId);
      if (pending) earlier.add(pending);
    }
    const done = (async () => {
      if (earlier.size > 0) await Promise.all(earlier);
      return isolated(writes);
    })();
    for (const write of writes) writing.set(write.sessionId, done);
    const forget = () => {
      for (const write of writes) if (writing.get(write.sessionId) === done) writing.delete(write.sessionId);
    };
    done.then(forget, forget);
    return done;
  };

  /**
   * The statement, answering each write. If it fails (it is rolled back whole), each write is tried
   * alone, so that only a write that fails by itself (a session another replica writes meanwhile, a
   * state the table refuses) fails, not every session of the turn.
   */
  const isolated = async (writes: LogWrite[]): Promise<Answer[]> => {
    try {
      return await statement(writes);
    } catch (error) {
      if (writes.length === 1) return [asError(error)];
      return Promise.all(writes.map((write) => statement([write]).then(([one]) => one!, asError)));
    }
  };

  const statement = async (writes: LogWrite[]): Promise<LogWritten[]> => {
    const eventCall: number[] = [];
    const json: string[] = [];
    for (const [k, write] of writes.entries()) {
      for (const one of write.json) {
        eventCall.push(k + 1); // ORDINALITY counts from 1
        json.push(one);
      }
    }
    const { rows } = await pool.query(text, [
      writes.map((write) => write.sessionId),
      writes.map((write) => write.save?.state ?? null),
      writes.map((write) => write.save?.expectedVersion ?? null),
      writes.map((write) => write.leaseOwner ?? null),
      eventCall,
      json,
      channel,
      // a write with no events (a checkpoint that only saves) has nothing to tell
      writes.map((write) => (write.json.length > 0 ? write.notice : null)),
      writes.map((write) => write.generation ?? null),
      writes.map((write) => write.save?.head ?? null),
      writes.map((write) => write.save?.base ?? null),
    ]);
    const written: LogWritten[] = [];
    for (const row of rows) {
      written[Number(row.k) - 1] = {
        fenced: row.fenced === true,
        before: Number(row.s),
        saved: row.saved === null ? null : Number(row.saved),
        actual: row.actual === null ? null : Number(row.actual),
      };
    }
    return written;
  };

  const batch = new LoopTurnBatch<LogWrite, Answer>(
    async (writes) => {
      // rounds in which each session is written once, in the order of the calls
      const rounds: number[][] = [];
      const seen = new Map<string, number>();
      for (const [i, write] of writes.entries()) {
        const round = seen.get(write.sessionId) ?? 0;
        seen.set(write.sessionId, round + 1);
        if (round === rounds.length) rounds.push([]);
        rounds[round]!.push(i);
      }
      const written: Answer[] = [];
      for (const round of rounds) {
        const answers = await run(round.map((i) => writes[i]!));
        for (const [j, i] of round.entries()) written[i] = answers[j]!;
      }
      return written;
    },
    { maxInFlight: STATEMENTS_IN_FLIGHT, perSend: 1024 },
  );
  return {
    async write(write) {
      const answer = await batch.call(write);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

/** A write's answer inside the batch: what it wrote, or why it alone failed. */
type Answer = LogWritten | Error;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
