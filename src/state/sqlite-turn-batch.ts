import type BetterSqlite3 from "better-sqlite3";
import { LoopTurnBatch } from "./loop-turn-batch.js";

/**
 * Calls per loop turn at most. better-sqlite3 works on the event loop's thread: a backlog of a
 * thousand calls done in one turn stalls every stream for the whole of it, and all their replies then
 * land in one burst. Sliced, each turn commits this many and the loop writes their frames and reads
 * sockets before the next. Much smaller slices cost more commits than they save (measured at 10,000
 * streams: 16 or 32 per turn saturated the loop; 64 to 256 did not).
 */
const SQLITE_PER_TURN = 128;

/**
 * The calls made in one turn of the event loop, run by `each` in one IMMEDIATE transaction: one
 * commit to the WAL for all of them, not one per call (up to SQLITE_PER_TURN; more wait for the next
 * turn). better-sqlite3 is synchronous, so under load the commits are what the event loop waits for.
 * A throw from `each` fails the whole batch; answer a per-call failure (a compare-and-set conflict)
 * as a result instead.
 */
export function sqliteTurnBatch<T, R>(db: BetterSqlite3.Database, each: (item: T) => R): LoopTurnBatch<T, R> {
  const all = db.transaction((items: T[]) => items.map(each));
  return new LoopTurnBatch<T, R>(async (items) => all.immediate(items), { perTurn: SQLITE_PER_TURN });
}
