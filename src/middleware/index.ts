export * from "./budget.js";
export * from "./tool-result-limit.js";
