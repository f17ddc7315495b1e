export { type Closeable, closeAll } from "./closeable.js";
export {
  describeZodError,
  type FunctionToolConfig,
  type FunctionToolRulesCovered,
  functionTool,
  zodToJsonSchema,
} from "./function-tool.js";
export {
  type JsonSchemaToolConfig,
  type JsonSchemaToolRulesCovered,
  jsonSchemaTool,
  prepareJsonSchemaValidation,
} from "./json-schema-tool.js";
// MCP loads @modelcontextprotocol/sdk only when a client connects; skills use node:fs only.
export {
  describeMcpConfig,
  type McpCallOptions,
  McpClient,
  type McpClientOptions,
  McpError,
  type McpHttpConfig,
  type McpProgress,
  type McpServerConfig,
  type McpStdioConfig,
  type McpTool,
  type McpToolCaller,
  mcpContentToBlock,
  mcpResultToBlocks,
  mcpToolName,
  mcpTools,
  type RegisterMcpOptions,
  registerMcpClient,
  resourceContentsToBlock,
  validateMcpConfig,
} from "./mcp/index.js";
export {
  APPROVED_PLAN_KEY,
  PERMISSION_MODE_CHANGED,
  type PermissionModeChange,
  type PlanToolOptions,
  planTool,
} from "./plan-tool.js";
export type { ProcessRequest, ProcessRunner } from "./process-runner.js";
export {
  type FrontMatter,
  FrontMatterError,
  type FrontMatterValue,
  listSkillFiles,
  loadSkills,
  parseFrontMatter,
  readSkillFile,
  SKILL_FILE,
  type Skill,
  skillsPrompt,
  skillTool,
} from "./skill/index.js";
export { type NewTask, TaskBoard, type TaskChange } from "./task-board.js";
export { TASK_TOOL_NAMES, taskTools } from "./task-tools.js";
export { ToolError } from "./tool-error.js";
export { BASIC_GROUP, type ToolGroup, Toolkit, ToolNameCollisionError } from "./toolkit.js";
export {
  type Tool,
  type ToolCallReturn,
  type ToolChangePreview,
  type ToolChunk,
  type ToolContext,
  ToolInputError,
  type ToolOutput,
  toolSchemaOf,
} from "./types.js";
