import { fileScheme } from "./json-file-store.js";
import { memoryScheme } from "./memory/memory-store.js";
import { mysqlScheme } from "./mysql/mysql-store.js";
import { postgresScheme } from "./postgres/postgres-store.js";
import { redisScheme } from "./redis/redis-store.js";
import { sqliteScheme } from "./sqlite/sqlite-store.js";
import { type StoreFamily, splitStoreUrl, storeFamily } from "./store-family.js";

/**
 * Every driver family, in the order the supported URLs are listed: its store module's scheme and its
 * backend module, imported on first use. A new driver adds its line here.
 */
export const STORE_FAMILIES: readonly StoreFamily[] = [
  storeFamily(memoryScheme, () => import("./memory/memory-backend.js")),
  storeFamily(fileScheme),
  storeFamily(sqliteScheme, () => import("./sqlite/sqlite-backend.js")),
  storeFamily(redisScheme, () => import("./redis/redis-backend.js")),
  storeFamily(postgresScheme, () => import("./postgres/postgres-backend.js")),
  storeFamily(mysqlScheme),
];

/** The family whose scheme `url` has, or undefined. */
export function familyOf(url: string): StoreFamily | undefined {
  const { scheme } = splitStoreUrl(url);
  return STORE_FAMILIES.find((family) => family.schemes.includes(scheme));
}

/** The supported URLs, for an error: every family's, or only those that back the service. */
export function supportedUrls(which: "store" | "service"): string {
  return STORE_FAMILIES.filter((family) => which === "store" || family.openBackend)
    .map((family) => family.example)
    .join(", ");
}
