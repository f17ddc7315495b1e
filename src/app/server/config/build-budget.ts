import type { SpendLimit, SpendUnit } from "../../../middleware/index.js";
import { spendBudgetMiddleware } from "../../../middleware/index.js";
import { InMemorySpendCounter, openSpendCounter, type SpendCounter } from "../../../state/index.js";
import type { SessionDirectory } from "../../../state/service/service-backend.js";
import type { ServiceAgentOptions } from "../runtime/service-runtime.js";
import { ConfigError, type ServiceConfig } from "./service-config.js";

/**
 * Spend budgets for every agent of the service (docs/tracing-and-budgets.md): `user` limits count the
 * session owner's spend. Give the replicas one shared `counter` (RedisSpendCounter,
 * PostgresSpendCounter, MySqlSpendCounter); the default, in memory, holds for this process only.
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
  /** Closes the counter's connection when the service opened it (the config's budget). */
  close(): Promise<void>;
}

/**
 * The config's `budget` key as a ServiceBudget: its counter on the service's store (the same SQLite
 * file, Redis, PostgreSQL or MySQL server, under the store's prefix), or in memory. A store with no atomic
 * counter is a ConfigError naming the ones that have one.
 */
export async function budgetOfConfig(
  setting: NonNullable<ServiceConfig["budget"]>,
  storeUrl: string,
  prefix: string | undefined,
): Promise<ServiceBudget & { counter: SpendCounter }> {
  const limits = setting.limits.map((limit) => ({ ...limit }) as SpendLimit);
  const reserve = setting.reservePerCall ? { reservePerCall: setting.reservePerCall } : {};
  if (setting.counter === "memory") return { limits, counter: new InMemorySpendCounter(), ...reserve };
  try {
    return { limits, counter: await openSpendCounter(storeUrl, prefix), ...reserve };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Adds one spend budget middleware (sessions' owners as users) to every agent. */
export function attachBudget(
  agents: ServiceAgentOptions[],
  budget: ServiceBudget,
  sessions: SessionDirectory,
  owned = false,
): OpenedBudget {
  const counter: SpendCounter = budget.counter ?? new InMemorySpendCounter();
  const middleware = spendBudgetMiddleware({
    counter,
    limits: budget.limits,
    userOf: async (ctx) => (await sessions.get(ctx.state.sessionId))?.owner,
    ...(budget.reservePerCall ? { reservePerCall: budget.reservePerCall } : {}),
  });
  for (const agent of agents) agent.middlewares = [...(agent.middlewares ?? []), middleware];
  return {
    limits: budget.limits,
    counter,
    close: async () => void (owned ? await counter.close?.() : undefined),
  };
}
