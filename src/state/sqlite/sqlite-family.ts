import { localPath } from "../local-path.js";
import { type StoreFamily, splitStoreUrl } from "../store-family.js";
import { SqliteStateStore } from "./sqlite-store.js";

/**
 * The file of a `sqlite:` URL: `sqlite:./path.db`, `sqlite:///abs/path.db`, `sqlite::memory:`, or
 * undefined for `sqlite:` alone (the default `.agentscope/state.db`).
 */
export function sqliteFileOf(url: string): string | undefined {
  const { rest } = splitStoreUrl(url);
  return rest === "" ? undefined : localPath(rest);
}

/** SQLite: state, event log, run leases and sessions in one file; the bus within one process. */
export const sqliteFamily: StoreFamily = {
  schemes: ["sqlite"],
  example: "sqlite:./path.db",
  async openStore(url, { table }) {
    const store = new SqliteStateStore({ path: sqliteFileOf(url), table });
    await store.init();
    return store;
  },
  async openBackend(url, options) {
    return (await import("./sqlite-backend.js")).sqliteBackend(sqliteFileOf(url), options);
  },
};
