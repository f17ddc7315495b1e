import type { Hono } from "hono";
import type { ServiceVariables } from "../server/http/auth.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import { uiChatRoutes } from "./ai-sdk/index.js";
import { mcpRoutes } from "./mcp/index.js";
import { openaiRoutes } from "./openai/index.js";

export {
  chatTurn,
  finishUi,
  replyReplayPoint,
  startUi,
  translateUiEvent,
  UI_SESSION_HEADER,
  type UiChatRequest,
  UiChatRequestSchema,
  type UiChatTurn,
  type UiTranslation,
  uiChatRoutes,
  uiDone,
  uiMessageFrames,
} from "./ai-sdk/index.js";
export {
  AGENT_TOOL_INPUT,
  type AgentCallContext,
  agentMcpServer,
  agentTools,
  callAgentTool,
  MAX_MCP_SESSIONS_PER_USER,
  MCP_SERVER_NAME,
  mcpRoutes,
} from "./mcp/index.js";
export {
  type AgentscopeExtension,
  ChatCompletionRequestSchema,
  type ChatDelta,
  type ChatFinish,
  type ChatTranslation,
  type ChatUsage,
  type CompletionHead,
  chatCompletion,
  chatFrames,
  chatInput,
  checkChatRequest,
  finishChat,
  openaiRoutes,
  PENDING_HEADER,
  type PendingToolCall,
  SESSION_HEADER,
  startChat,
  translateChatEvent,
} from "./openai/index.js";

/** The bridges to other protocols' clients, mounted next to /v1 (same auth): OpenAI chat completions, MCP, the AI SDK UI message stream. */
export function bridgeRoutes(runtime: ServiceRuntime): Array<Hono<{ Variables: ServiceVariables }>> {
  return [openaiRoutes(runtime), mcpRoutes(runtime), uiChatRoutes(runtime)];
}
