export * from "./client.js";
export * from "./config.js";
export { mcpContentToBlock, mcpResultToBlocks, resourceContentsToBlock } from "./content.js";
export { McpError } from "./errors.js";
export * from "./register.js";
export * from "./tool.js";
