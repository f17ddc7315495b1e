export { A2A_INPUT_TOOL, A2AAgent, type A2AAgentOptions } from "./a2a-agent.js";
export type { AgentLike } from "./agent-like.js";
export { delegatesOf } from "./delegates.js";
export { finalText } from "./final-text.js";
export { foldSubRun, subRunsIn } from "./fold-sub-run.js";
export {
  ExecutorReport,
  type GoalOutcome,
  GoalPipeline,
  type GoalPipelineOptions,
  type Verdict,
  VerifierVerdict,
} from "./goal-pipeline.js";
export {
  activeAgentOf,
  HANDOFF_EVENT,
  HANDOFF_KEY,
  type HandoffChange,
  type HandoffOptions,
  HandoffRouter,
  handoffTool,
  takeHandoff,
} from "./handoff.js";
export { type HubParticipant, MsgHub, type MsgHubOptions, spoken } from "./msg-hub.js";
export { narrowPermission } from "./narrow-permission.js";
export { OrchestratedReply, type StepOptions, type StepOutcome } from "./orchestrated-reply.js";
export { type NestedOutcome, type NestedRunOptions, runNested, type StoredSubRun } from "./run-nested.js";
export { fanout, fanoutStream, type PipelineRunOptions, sequential, sequentialStream } from "./sequential.js";
export {
  AgentSpawner,
  type AgentSpawnerOptions,
  addUsage,
  agentSpawner,
  messageRefusal,
  outcomeText,
  overLimit,
  parentMessage,
  type ResolvedLimits,
  reopen,
  resolveLimits,
  SPAWNS_KEY,
  type SpawnHandle,
  type SpawnHost,
  type SpawnLimits,
  type SpawnRecord,
  type SpawnRequest,
  type SpawnStatus,
  type SpawnTemplate,
  spawnHints,
  spawnTools,
  usedTokens,
} from "./spawn/index.js";
export { type SubAgentToolOptions, subAgentTool, subState, toolResultOf } from "./sub-agent-tool.js";
export {
  TEAM_ASSIGN_TOOL,
  type TeamMember,
  TeamPipeline,
  type TeamPipelineOptions,
} from "./team-pipeline.js";
