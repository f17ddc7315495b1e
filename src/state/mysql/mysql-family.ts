import { parseServerUrl } from "../server-url.js";
import type { StoreFamily } from "../store-family.js";
import { MySqlStateStore } from "./mysql-store.js";

/** MySQL and MariaDB: agent state only (see `noBackend`). */
export const mysqlFamily: StoreFamily = {
  schemes: ["mysql", "mariadb"],
  example: "mysql://",
  async openStore(url, { table }) {
    const store = new MySqlStateStore({ url: parseServerUrl(url, "the MySQL store"), table });
    await store.init();
    return store;
  },
  noBackend:
    "MySQL keeps agent state (createStateStore) but cannot back the service: the service's replicas wake each other through the store (PostgreSQL LISTEN/NOTIFY, Redis pub/sub), MySQL has no such notification, and this version has no polling event log, run leases or session directory for it",
};
