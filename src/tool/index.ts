export * from "./closeable.js";
export * from "./function-tool.js";
export * from "./json-schema-tool.js";
// MCP loads @modelcontextprotocol/sdk only when a client connects; skills use node:fs only.
export * from "./mcp/index.js";
export * from "./process-runner.js";
export * from "./skill/index.js";
export * from "./tool-error.js";
export * from "./toolkit.js";
export * from "./types.js";
