export type {
  SpendLimit,
  SpendPeriod,
  SpendScope,
  SpendStatus,
  SpendUnit,
} from "../protocol/budget-types.js";
export { type BudgetOptions, type BudgetUsage, budgetMiddleware } from "./budget.js";
export { type BudgetStop, type SpendBudgetOptions, spendBudgetMiddleware } from "./spend-budget.js";
export { readSpend, type SpendSubject } from "./spend-limits.js";
export {
  type ToolOutputOffload,
  type ToolResultLimitOptions,
  type TruncationInfo,
  toolResultLimitMiddleware,
} from "./tool-result-limit.js";
