import type { InputChange } from "../protocol/decision-record.js";

/**
 * What an edit changed in a call's arguments, from the JSON text asked about to the JSON text
 * approved: one change per JSON Pointer path where they differ (objects compared key by key, arrays
 * index by index; any other difference is one change at that path). Text that is not JSON is
 * compared whole, at the root path `""`.
 */
export function inputChanges(before: string, after: string): InputChange[] {
  const changes: InputChange[] = [];
  const left = parsed(before);
  const right = parsed(after);
  if (left.ok && right.ok) compare(left.value, right.value, "", changes);
  else if (before !== after) changes.push({ path: "", before, after });
  return changes;
}

function compare(before: unknown, after: unknown, path: string, out: InputChange[]): void {
  if (isObject(before) && isObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const at = `${path}/${escapePointer(key)}`;
      if (!(key in after)) out.push({ path: at, before: before[key] });
      else if (!(key in before)) out.push({ path: at, after: after[key] });
      else compare(before[key], after[key], at, out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const at = `${path}/${i}`;
      if (i >= after.length) out.push({ path: at, before: before[i] });
      else if (i >= before.length) out.push({ path: at, after: after[i] });
      else compare(before[i], after[i], at, out);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, before, after });
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: text.trim() === "" ? {} : JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 6901: `~` as `~0`, `/` as `~1`. */
function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
