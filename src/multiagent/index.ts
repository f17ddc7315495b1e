export * from "./agent-like.js";
export * from "./final-text.js";
export * from "./fold-sub-run.js";
export * from "./narrow-permission.js";
export * from "./run-nested.js";
export * from "./sub-agent-tool.js";
