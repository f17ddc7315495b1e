export * from "./error-body.js";
export * from "./error-status.js";
