import type { PoolConnection } from "mysql2/promise";
import type { MySqlQueryable } from "./mysql-pool.js";

/** What a transaction's work runs its statements on. */
export type MySqlTransactionConnection = Pick<PoolConnection, "execute" | "query">;

/**
 * Transactions on a MySqlQueryable: each on a connection of its own when it is a pool, one after the
 * other when it is a single connection (a transaction holds the connection until it ends).
 */
export class MySqlTransactions {
  #turn: Promise<unknown> = Promise.resolve();

  /** Runs `work` in a transaction, committed when `commit` says so of its result, else rolled back (and when it throws). */
  async run<T>(
    db: MySqlQueryable,
    commit: (result: T) => boolean,
    work: (connection: MySqlTransactionConnection) => Promise<T>,
  ): Promise<T> {
    const inTransaction = async (connection: MySqlQueryable) => {
      await connection.query("START TRANSACTION");
      try {
        const result = await work(connection as MySqlTransactionConnection);
        await connection.query(commit(result) ? "COMMIT" : "ROLLBACK");
        return result;
      } catch (error) {
        await connection.query("ROLLBACK").catch(() => {});
        throw error;
      }
    };
    if (db.getConnection) {
      const connection = await db.getConnection();
      try {
        return await inTransaction(connection);
      } finally {
        connection.release();
      }
    }
    const turn = this.#turn.then(() => inTransaction(db));
    this.#turn = turn.catch(() => {});
    return turn;
  }
}
