export { type BudgetOptions, type BudgetUsage, budgetMiddleware } from "./budget.js";
export { type BudgetStop, type SpendBudgetOptions, spendBudgetMiddleware } from "./spend-budget.js";
export {
  readSpend,
  type SpendLimit,
  type SpendPeriod,
  type SpendScope,
  type SpendStatus,
  type SpendSubject,
  type SpendUnit,
} from "./spend-limits.js";
export {
  type ToolOutputOffload,
  type ToolResultLimitOptions,
  type TruncationInfo,
  toolResultLimitMiddleware,
} from "./tool-result-limit.js";
