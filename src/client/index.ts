export { backoffDelay, type RetryPolicy, sleep } from "./backoff.js";
export { CheckpointTree, type MessageBranches } from "./checkpoint-tree.js";
export { AgentScopeClient, type AgentScopeClientOptions } from "./client.js";
export { confirmRequestFor } from "./confirm-request.js";
export {
  AgentScopeClientError,
  ConnectionError,
  EventsLostError,
  ServiceError,
  type ServiceErrorType,
  serviceErrorOf,
} from "./errors.js";
export { type ConnectionState, EventStream, type EventStreamOptions } from "./event-stream.js";
export {
  type IndexJob,
  type IndexJobStatus,
  type KnowledgeBaseInfo,
  KnowledgeBases,
  type KnowledgeDocument,
  type KnowledgeHit,
  type KnowledgeSearchOptions,
  type KnowledgeUpload,
  type ServiceRequest,
} from "./knowledge.js";
export { localUserMessages } from "./local-user-msg.js";
export { endsRun, isSubagentPause, RunStream, type StreamOptions } from "./run-stream.js";
export {
  addUserMessage,
  applySessionEvent,
  emptySessionView,
  loadTasks,
  type PendingApproval,
  type SessionView,
  type SubRun,
  sessionViewFromHistory,
  subRunsOf,
  tasksInState,
} from "./session-view.js";
export { type SubagentProgress, type SubagentStatus, subagentsOf } from "./subagent-progress.js";
export type {
  AgentList,
  AgentProfile,
  ApprovalList,
  ApprovalRequest,
  ApproverAnswerAccepted,
  BudgetStanding,
  ConfirmAnswer,
  ConfirmRequest,
  CreateSessionOptions,
  ExternalResultsRequest,
  ForgetResult,
  InterruptResult,
  MemoryList,
  MemoryNote,
  MemoryNotes,
  MemoryRecord,
  RunStarted,
  SendInput,
  ServiceHealth,
  SessionDetail,
  SessionEvalCase,
  SessionInfo,
  SessionPage,
  SessionStateVersion,
  SessionStatus,
  SpendStatus,
  ToolProfile,
  ToolTrial,
  WorkspaceEntry,
  WorkspaceListing,
} from "./types.js";
export {
  type AgentscopeChatTransport,
  type AgentscopeChatTransportOptions,
  agentscopeChatTransport,
  type UiChatMessage,
} from "./ui-chat-transport.js";
