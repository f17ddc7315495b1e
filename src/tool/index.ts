export * from "./closeable.js";
export * from "./function-tool.js";
export * from "./json-schema-tool.js";
export * from "./tool-error.js";
export * from "./toolkit.js";
export * from "./types.js";
