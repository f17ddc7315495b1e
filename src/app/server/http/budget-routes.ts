import type { Hono } from "hono";
import { readSpend } from "../../../middleware/index.js";
import type { BudgetStanding } from "../../../protocol/index.js";
import type { OpenedBudget } from "../config/build-budget.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";

/** GET /v1/budget: the caller's spend and what is left of each `user` limit (none without a budget). */
export function budgetRoutes(budget: OpenedBudget | undefined): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    getBudget: async (c) => {
      const user = c.var.user;
      const limits = (budget?.limits ?? []).filter((limit) => limit.scope === "user");
      const lines = budget
        ? await readSpend(budget.counter, limits, { sessionId: "", replyId: "", userId: user })
        : [];
      const standing: BudgetStanding = { user, lines };
      return c.json(standing);
    },
  });
}
