import { parseServerUrl } from "../server-url.js";
import type { StoreFamily } from "../store-family.js";
import { PostgresStateStore } from "./postgres-store.js";

/** PostgreSQL: state, event log, leases and sessions as tables; LISTEN/NOTIFY between replicas. */
export const postgresFamily: StoreFamily = {
  schemes: ["postgres", "postgresql"],
  example: "postgres://",
  async openStore(url, { table }) {
    const store = new PostgresStateStore({ url: parseServerUrl(url, "the PostgreSQL store"), table });
    await store.init();
    return store;
  },
  async openBackend(url, options) {
    const { postgresBackend } = await import("./postgres-backend.js");
    return postgresBackend(parseServerUrl(url, "the PostgreSQL service backend"), options);
  },
};
