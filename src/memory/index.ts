export * from "./file-memory-files.js";
export * from "./memory-files.js";
export * from "./memory-tool.js";
export * from "./scope.js";
export * from "./state-document.js";
export * from "./state-memory-files.js";
export * from "./types.js";
