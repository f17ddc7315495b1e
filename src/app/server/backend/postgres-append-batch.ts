import type { Pool } from "pg";
import { LoopTurnBatch } from "../../../state/loop-turn-batch.js";

/** One session's append: its events' JSON and the notice for other replicas. */
export interface SessionAppend {
  sessionId: string;
  json: string[];
  notice: string;
}

/**
 * The appends of every session on this replica made in one turn of the event loop, as one statement
 * (a query per event batch cost a round trip, a parse and a plan each: at 10,000 streams thousands a
 * second). The busier the replica, the more appends each statement carries. Resolves with each append's seq before its first event. The events are numbered after
 * each session's last seq in the order of the calls, so two appends of one session in the same turn
 * take consecutive seqs; the notices go out with them.
 */
export function postgresAppendBatch(
  pool: Pool,
  options: { prefix: string; channel: string },
): LoopTurnBatch<SessionAppend, number> {
  const events = `${options.prefix}events`;
  const text = `WITH calls AS (SELECT session_id, k FROM unnest($1::text[]) WITH ORDINALITY AS c(session_id, k)),
    ev AS (SELECT k, ev, ord FROM unnest($2::bigint[], $3::text[]) WITH ORDINALITY AS e(k, ev, ord)),
    last AS (
      SELECT d.session_id, COALESCE((SELECT MAX(seq) FROM ${events} x WHERE x.session_id = d.session_id), 0) AS s
      FROM (SELECT DISTINCT session_id FROM calls) d),
    added AS (
      INSERT INTO ${events} (session_id, seq, event)
      SELECT calls.session_id, last.s + row_number() OVER (PARTITION BY calls.session_id ORDER BY ev.ord), ev.ev
      FROM ev JOIN calls ON calls.k = ev.k JOIN last ON last.session_id = calls.session_id),
    notice AS (SELECT pg_notify($4, n) FROM unnest($5::text[]) AS n)
    SELECT last.session_id, last.s FROM last, (SELECT count(*) FROM notice) AS told`;
  // One statement at a time: two in flight on two connections could both read a session's last seq.
  return new LoopTurnBatch(
    async (appends) => {
      const eventCall: number[] = [];
      const json: string[] = [];
      for (const [k, append] of appends.entries()) {
        for (const one of append.json) {
          eventCall.push(k + 1); // ORDINALITY counts from 1
          json.push(one);
        }
      }
      const { rows } = await pool.query(text, [
        appends.map((append) => append.sessionId),
        eventCall,
        json,
        options.channel,
        appends.map((append) => append.notice),
      ]);
      const last = new Map<string, number>();
      for (const row of rows) last.set(row.session_id as string, Number(row.s));
      // each call starts where the calls of its session before it in this batch ended
      return appends.map((append) => {
        const before = last.get(append.sessionId) ?? 0;
        last.set(append.sessionId, before + append.json.length);
        return before;
      });
    },
    { maxInFlight: 1, perSend: 1024 },
  );
}
