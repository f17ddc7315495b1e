export {
  type AgentSession,
  type AgentSessionStatus,
  type UseAgentSessionOptions,
  useAgentSession,
} from "./use-agent-session.js";
export { type TimeTravel, type UseTimeTravelOptions, useTimeTravel } from "./use-time-travel.js";
