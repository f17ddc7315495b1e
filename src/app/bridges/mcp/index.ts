export { AGENT_TOOL_INPUT, type AgentCallContext, agentTools, callAgentTool } from "./agent-tools.js";
export { agentMcpServer, MCP_SERVER_NAME, mcpRoutes } from "./mcp-routes.js";
