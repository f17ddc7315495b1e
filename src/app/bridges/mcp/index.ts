export { AGENT_TOOL_INPUT, type AgentCallContext, agentTools, callAgentTool } from "./agent-tools.js";
export { agentMcpServer, MAX_MCP_SESSIONS_PER_USER, MCP_SERVER_NAME, mcpRoutes } from "./mcp-routes.js";
