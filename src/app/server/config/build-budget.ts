import type { SpendLimit, SpendUnit } from "../../../middleware/index.js";
import { spendBudgetMiddleware } from "../../../middleware/index.js";
import { InMemorySpendCounter, type SpendCounter } from "../../../state/index.js";
import type { SessionDirectory } from "../../../state/service/service-backend.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";

/**
 * Spend budgets for every agent of the service (docs/tracing-and-budgets.md): `user` limits count the
 * session owner's spend. Give the replicas one shared `counter` (RedisSpendCounter,
 * PostgresSpendCounter); the default, in memory, holds for this process only.
 */
export interface ServiceBudget {
  limits: SpendLimit[];
  counter?: SpendCounter;
  reservePerCall?: Partial<Record<SpendUnit, number>>;
}

/** The budget as the routes read it: its counter chosen. */
export interface OpenedBudget {
  limits: readonly SpendLimit[];
  counter: SpendCounter;
}

/** Adds one spend budget middleware (sessions' owners as users) to every agent. */
export function attachBudget(
  agents: ServiceAgentOptions[],
  budget: ServiceBudget,
  sessions: SessionDirectory,
): OpenedBudget {
  const counter = budget.counter ?? new InMemorySpendCounter();
  const middleware = spendBudgetMiddleware({
    counter,
    limits: budget.limits,
    userOf: async (ctx) => (await sessions.get(ctx.state.sessionId))?.owner,
    ...(budget.reservePerCall ? { reservePerCall: budget.reservePerCall } : {}),
  });
  for (const agent of agents) agent.middlewares = [...(agent.middlewares ?? []), middleware];
  return { limits: budget.limits, counter };
}
