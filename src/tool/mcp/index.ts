export { McpClient, type McpClientOptions } from "./client.js";
export {
  describeMcpConfig,
  type McpHttpConfig,
  type McpServerConfig,
  type McpStdioConfig,
  validateMcpConfig,
} from "./config.js";
export { mcpContentToBlock, mcpResultToBlocks, resourceContentsToBlock } from "./content.js";
export { McpError } from "./errors.js";
export { type RegisterMcpOptions, registerMcpClient } from "./register.js";
export {
  type McpCallOptions,
  type McpProgress,
  type McpTool,
  type McpToolCaller,
  mcpToolName,
  mcpTools,
} from "./tool.js";
