export * from "./dangerous-paths.js";
export * from "./engine.js";
export * from "./path-rule.js";
export * from "./paths.js";
export * from "./permission-options.js";
export * from "./rule.js";
export * from "./types.js";
