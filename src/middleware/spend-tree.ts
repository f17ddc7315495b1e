import { AsyncLocalStorage } from "node:async_hooks";
import type { SpendLine } from "./spend-limits.js";

/**
 * The lines of the reply whose tool call is running: a sub-agent that runs inside that call (agent as
 * tool, spawn) finds them here and charges them too, so it draws from its parent's remaining budget
 * and cannot spend past it. Set around each tool call by `spendBudgetMiddleware`.
 */
const parentLines = new AsyncLocalStorage<readonly SpendLine[]>();

export function inheritedLines(): readonly SpendLine[] {
  return parentLines.getStore() ?? [];
}

export function withParentLines<T>(lines: readonly SpendLine[], run: () => T): T {
  return parentLines.run(lines, run);
}
