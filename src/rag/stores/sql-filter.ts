import { filterConditions } from "../filter.js";
import type { MetadataFilter, MetadataValue } from "../types.js";

/** How one SQL engine reads a metadata key out of its JSON column. */
export interface SqlFilterDialect {
  /** Adds a bound parameter and returns its placeholder (`?` or `$n`). */
  param(value: unknown): string;
  /** A condition true when the key holds exactly this value (same JSON type), false or NULL otherwise. */
  equals(key: string, value: MetadataValue): string;
  /** The key's value as a number when it holds a number, else NULL. */
  number(key: string): string;
}

const COMPARISONS = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;

/**
 * Compiles a metadata filter to a SQL condition with the semantics of `matchesFilter` (the
 * in-memory reference): keys missing from a chunk match only `$ne` and `$nin`.
 */
export function compileSqlFilter(filter: MetadataFilter | undefined, dialect: SqlFilterDialect): string {
  const parts = filterConditions(filter).map(({ key, op, value }) => {
    const anyOf = (values: MetadataValue[]) =>
      values.length === 0 ? "FALSE" : `(${values.map((v) => `(${dialect.equals(key, v)})`).join(" OR ")})`;
    switch (op) {
      case "$eq":
        return `(${dialect.equals(key, value as MetadataValue)})`;
      case "$ne":
        return `((${dialect.equals(key, value as MetadataValue)}) IS NOT TRUE)`;
      case "$in":
        return anyOf(value as MetadataValue[]);
      case "$nin":
        return `(${anyOf(value as MetadataValue[])} IS NOT TRUE)`;
      default:
        return `(${dialect.number(key)} ${COMPARISONS[op]} ${dialect.param(value)})`;
    }
  });
  return parts.length === 0 ? "TRUE" : parts.join(" AND ");
}
