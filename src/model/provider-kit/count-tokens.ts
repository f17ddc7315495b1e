import { AgentScopeError } from "../../message/index.js";

/**
 * The provider's token count, or `estimate()` when the endpoint fails (unreachable, rejected,
 * malformed answer). An abort is not a failure of the endpoint: it rejects.
 */
export async function countOrEstimate(
  count: () => Promise<unknown>,
  read: (body: unknown) => number | undefined,
  estimate: () => number,
): Promise<number> {
  try {
    const tokens = read(await count());
    return typeof tokens === "number" && Number.isFinite(tokens) ? tokens : estimate();
  } catch (error) {
    if (error instanceof AgentScopeError && error.info.type === "aborted") throw error;
    return estimate();
  }
}
