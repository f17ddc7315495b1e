import { RagError } from "./errors.js";
import type { FilterOperators, Metadata, MetadataFilter, MetadataValue } from "./types.js";

const KEY_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const OPERATORS = new Set(["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte"]);

/** One normalised condition: a metadata key, an operator and its operand. */
export interface FilterCondition {
  key: string;
  op: keyof FilterOperators;
  value: MetadataValue | MetadataValue[];
}

function isScalar(value: unknown): value is MetadataValue {
  return (
    typeof value === "string" ||
    typeof value === "boolean" ||
    (typeof value === "number" && Number.isFinite(value))
  );
}

/** Validates a filter and flattens it into conditions (ANDed); throws a RagError naming the bad part. */
export function filterConditions(filter: MetadataFilter | undefined): FilterCondition[] {
  if (filter === undefined) return [];
  if (typeof filter !== "object" || filter === null || Array.isArray(filter)) {
    throw new RagError("metadata filter must be an object of key: value or key: { $op: value }");
  }
  const conditions: FilterCondition[] = [];
  for (const [key, spec] of Object.entries(filter)) {
    if (!KEY_PATTERN.test(key)) {
      throw new RagError(`metadata filter key "${key}" is not allowed (use letters, digits, _, - and .)`);
    }
    if (isScalar(spec)) {
      conditions.push({ key, op: "$eq", value: spec });
      continue;
    }
    if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
      throw new RagError(`metadata filter for "${key}" must be a string, number, boolean or operator object`);
    }
    for (const [op, value] of Object.entries(spec)) {
      if (!OPERATORS.has(op)) throw new RagError(`metadata filter for "${key}" uses unknown operator ${op}`);
      const operator = op as keyof FilterOperators;
      if (operator === "$in" || operator === "$nin") {
        if (!Array.isArray(value) || !value.every(isScalar)) {
          throw new RagError(`metadata filter ${key}.${op} must be an array of strings, numbers or booleans`);
        }
      } else if (operator === "$eq" || operator === "$ne") {
        if (!isScalar(value))
          throw new RagError(`metadata filter ${key}.${op} must be a string, number or boolean`);
      } else if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new RagError(`metadata filter ${key}.${op} must be a finite number`);
      }
      conditions.push({ key, op: operator, value: value as MetadataValue | MetadataValue[] });
    }
  }
  return conditions;
}

function matchesCondition(actual: MetadataValue | undefined, { op, value }: FilterCondition): boolean {
  switch (op) {
    case "$eq":
      return actual === value;
    case "$ne":
      return actual !== value;
    case "$in":
      return actual !== undefined && (value as MetadataValue[]).includes(actual);
    case "$nin":
      return actual === undefined || !(value as MetadataValue[]).includes(actual);
    case "$gt":
      return typeof actual === "number" && actual > (value as number);
    case "$gte":
      return typeof actual === "number" && actual >= (value as number);
    case "$lt":
      return typeof actual === "number" && actual < (value as number);
    case "$lte":
      return typeof actual === "number" && actual <= (value as number);
  }
}

/** Whether metadata satisfies a filter (the reference semantics every store must reproduce). */
export function matchesFilter(metadata: Metadata, filter: MetadataFilter | undefined): boolean {
  return filterConditions(filter).every((condition) => matchesCondition(metadata[condition.key], condition));
}

/** Both filters at once (a key in both must satisfy both). */
export function combineFilters(
  forced: MetadataFilter | undefined,
  requested: MetadataFilter | undefined,
): MetadataFilter | undefined {
  if (!forced) return requested;
  if (!requested) return forced;
  const combined: MetadataFilter = { ...requested };
  for (const [key, spec] of Object.entries(forced)) {
    if (!(key in combined)) {
      combined[key] = spec;
      continue;
    }
    // Both constrain the key: the forced equality wins only if the requested one agrees.
    const mine = filterConditions({ [key]: spec });
    const theirs = filterConditions({ [key]: combined[key] as MetadataValue | FilterOperators });
    const merged: FilterOperators = {};
    for (const c of [...theirs, ...mine]) {
      const existing = (merged as Record<string, unknown>)[c.op];
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(c.value)) {
        // Two different equalities (or bounds) on one key: nothing can match both.
        merged.$in = [];
        continue;
      }
      (merged as Record<string, unknown>)[c.op] = c.value;
    }
    combined[key] = merged;
  }
  return combined;
}
