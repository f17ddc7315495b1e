/** One difference between two JSON values, at a path like `context[2].content[0].text`. */
export interface JsonChange {
  path: string;
  kind: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The differences between two JSON values, depth first: objects by key, arrays by index (a message
 * appended to a context is `context[n]` added), anything else compared as a value. At most `limit`.
 */
export function jsonDiff(before: unknown, after: unknown, limit = 200): JsonChange[] {
  const changes: JsonChange[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (changes.length >= limit) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
        const at = `${path}[${i}]`;
        if (i >= a.length) changes.push({ path: at, kind: "added", after: b[i] });
        else if (i >= b.length) changes.push({ path: at, kind: "removed", before: a[i] });
        else walk(a[i], b[i], at);
      }
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
        const at = path ? `${path}.${key}` : key;
        if (!(key in a)) changes.push({ path: at, kind: "added", after: b[key] });
        else if (!(key in b)) changes.push({ path: at, kind: "removed", before: a[key] });
        else walk(a[key], b[key], at);
      }
      return;
    }
    if (JSON.stringify(a) !== JSON.stringify(b))
      changes.push({ path: path || "(root)", kind: "changed", before: a, after: b });
  };
  walk(before, after, "");
  return changes;
}
