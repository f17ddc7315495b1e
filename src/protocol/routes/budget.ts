import type { BudgetStanding } from "../budget-types.js";
import { answer, type Route } from "../route.js";

/** Spend budgets: what a user has spent and what is left. */
export const BUDGET_ROUTES = {
  getBudget: {
    method: "GET",
    path: "/v1/budget",
    summary: "Your spend and what is left of each of your budgets",
    auth: "bearer",
    answer: answer<BudgetStanding>(200, "`{ user, lines: SpendStatus[] }` (no lines without a budget)"),
  },
} as const satisfies Record<string, Route>;
