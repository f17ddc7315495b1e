/**
 * Something a toolkit holds open on the agent's behalf (an MCP server connection). `close` must be
 * safe to call twice and must not throw for a peer that is already gone.
 */
export interface Closeable {
  close(): Promise<void>;
}

/** Closes every resource, all of them even when some fail; throws one error naming the failures. */
export async function closeAll(resources: Iterable<Closeable>): Promise<void> {
  const results = await Promise.allSettled([...resources].map((resource) => resource.close()));
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failures.length === 0) return;
  const reasons = failures.map((f) => (f.reason instanceof Error ? f.reason.message : String(f.reason)));
  throw new AggregateError(
    failures.map((f) => f.reason),
    `${failures.length} tool resource(s) failed to close: ${reasons.join("; ")}`,
  );
}
