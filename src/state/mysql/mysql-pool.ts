import type { Pool } from "mysql2/promise";
import { importDriver } from "../lazy-driver.js";
import { redactUrl } from "../redact-url.js";

/** The server the MySQL stores connect to when given no URL. */
const DEFAULT_MYSQL_URL = "mysql://root@127.0.0.1:3306/test";

/**
 * A mysql2 pool on a `mysql://` or `mariadb://` URL, the driver loaded on first use for `feature`
 * (named in a MissingDriverError and in the error of a failed `prepare`). Text compares byte for byte
 * (utf8mb4_bin). `prepare` (creating the tables) runs before the pool is returned; when it fails, the
 * pool is ended and the error names the server without its password.
 */
export async function openMySqlPool(
  url: string | undefined,
  feature: string,
  connectionLimit: number,
  prepare: (pool: Pool) => Promise<void> = async () => {},
): Promise<Pool> {
  const { createPool } = await importDriver(() => import("mysql2/promise"), "mysql2", feature);
  const uri = (url ?? DEFAULT_MYSQL_URL).replace(/^mariadb:/, "mysql:");
  const pool = createPool({ uri, charset: "utf8mb4_bin", connectionLimit });
  try {
    await prepare(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`${feature} cannot prepare ${redactUrl(uri)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return pool;
}

/**
 * What the store needs of a mysql2/promise Pool or Connection: `execute` runs load and save as
 * server-side prepared statements (prepared once per connection, then one round trip each).
 */
export interface MySqlQueryable {
  query: Pool["query"];
  execute: Pool["execute"];
  /** A pool's: a save's two statements run in a transaction on a connection of their own. */
  getConnection?: Pool["getConnection"];
}
