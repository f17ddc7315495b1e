export {
  type AgentSession,
  type AgentSessionStatus,
  type UseAgentSessionOptions,
  useAgentSession,
} from "./use-agent-session.js";
