/**
 * Bounds on free-form JSON a client sends (message `metadata`, tool results' provider data): how
 * deep it nests and how large it is. JSON.parse takes any depth, but the rest of the service
 * (serialising the state, the log, a reply's frames) recurses: a value nested thousands deep would be
 * accepted, then fail the reply. These checks run at the boundary, before anything is stored.
 */

/**
 * The path (keys and indexes, from `value`) of the first object or array nested deeper than
 * `maxDepth` levels (`value` itself, when an object or array, is level 1), or undefined. Walks
 * without recursion, so any depth is safe to check; stops at the first that is too deep.
 */
export function tooDeepAt(value: unknown, maxDepth: number): PropertyKey[] | undefined {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: node, path } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (path.length >= maxDepth) return path;
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(node)
      ? node.map((item, index) => [index, item])
      : Object.entries(node);
    for (const [key, child] of entries)
      if (typeof child === "object" && child !== null) stack.push({ value: child, path: [...path, key] });
  }
  return undefined;
}

const encoder = new TextEncoder();

/** The UTF-8 size of `value` as JSON (check its depth first: JSON.stringify recurses). */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? "").length;
}
