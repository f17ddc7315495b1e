import type { MemoryFilter, MemoryRecord, MemoryScope } from "./types.js";

const MAX_ID_LENGTH = 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkId(value: unknown, field: string, required: boolean): void {
  if (value === undefined && !required) return;
  if (
    typeof value !== "string" ||
    value.length === 0 ||
    value.length > MAX_ID_LENGTH ||
    CONTROL.test(value)
  ) {
    throw new TypeError(
      `memory scope: ${field} must be a string of 1 to ${MAX_ID_LENGTH} characters without control characters, got ${JSON.stringify(value)}`,
    );
  }
}

/** Throws a TypeError naming the bad field unless `scope` is a valid MemoryScope; returns it. */
export function assertScope(scope: unknown): MemoryScope {
  if (typeof scope !== "object" || scope === null) {
    throw new TypeError("memory scope: expected { userId, agentId? }, got " + String(scope));
  }
  const { userId, agentId } = scope as Record<string, unknown>;
  checkId(userId, "userId", true);
  checkId(agentId, "agentId", false);
  return scope as MemoryScope;
}

/** Whether `scope` may read `record` (see `MemoryScope`). */
export function canRead(record: Pick<MemoryRecord, "userId" | "agentId">, scope: MemoryScope): boolean {
  if (record.userId !== scope.userId) return false;
  return scope.agentId === undefined || record.agentId === undefined || record.agentId === scope.agentId;
}

/** Whether `record` matches a forget filter (an empty filter matches nothing). */
export function matchesFilter(record: MemoryRecord, filter: MemoryFilter): boolean {
  if (filter.ids === undefined && filter.kind === undefined) return false;
  if (filter.ids !== undefined && !filter.ids.includes(record.id)) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  return true;
}

/** A string key for a scope (`user` or `user/agent`), for stores keyed by text. */
export function scopeKey(scope: MemoryScope): string {
  return scope.agentId === undefined
    ? encodeURIComponent(scope.userId)
    : `${encodeURIComponent(scope.userId)}/${encodeURIComponent(scope.agentId)}`;
}
