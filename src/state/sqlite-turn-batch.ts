import type BetterSqlite3 from "better-sqlite3";
import { LoopTurnBatch } from "./loop-turn-batch.js";

/**
 * The calls made in one turn of the event loop, run by `each` in one IMMEDIATE transaction: one
 * commit to the WAL for all of them, not one per call. better-sqlite3 is synchronous, so under load
 * the commits are what the event loop waits for. A throw from `each` fails the whole batch; answer a
 * per-call failure (a compare-and-set conflict) as a result instead.
 */
export function sqliteTurnBatch<T, R>(db: BetterSqlite3.Database, each: (item: T) => R): LoopTurnBatch<T, R> {
  const all = db.transaction((items: T[]) => items.map(each));
  return new LoopTurnBatch<T, R>(async (items) => all.immediate(items));
}
