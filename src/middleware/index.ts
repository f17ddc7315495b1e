export { type BudgetOptions, type BudgetUsage, budgetMiddleware } from "./budget.js";
export {
  type ToolOutputOffload,
  type ToolResultLimitOptions,
  type TruncationInfo,
  toolResultLimitMiddleware,
} from "./tool-result-limit.js";
