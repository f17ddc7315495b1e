export * from "./bubblewrap-runner.js";
export * from "./errors.js";
export * from "./local-workspace.js";
export * from "./sandbox-policy.js";
export * from "./sandbox-workspace.js";
export * from "./workspace.js";
export * from "./workspace-file-view.js";
export * from "./workspace-files.js";
