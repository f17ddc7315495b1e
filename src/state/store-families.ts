import { fileFamily } from "./file/file-family.js";
import { memoryFamily } from "./memory/memory-family.js";
import { mysqlFamily } from "./mysql/mysql-family.js";
import { postgresFamily } from "./postgres/postgres-family.js";
import { redisFamily } from "./redis/redis-family.js";
import { sqliteFamily } from "./sqlite/sqlite-family.js";
import { type StoreFamily, splitStoreUrl } from "./store-family.js";

/** Every driver family, in the order the supported URLs are listed. A new driver adds its line here. */
export const STORE_FAMILIES: readonly StoreFamily[] = [
  memoryFamily,
  fileFamily,
  sqliteFamily,
  redisFamily,
  postgresFamily,
  mysqlFamily,
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
