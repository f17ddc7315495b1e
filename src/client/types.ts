import type { Msg } from "../message/index.js";

export type { BudgetStanding, SpendStatus } from "../protocol/budget-types.js";

export type {
  Answerer,
  DecisionChannel,
  DecisionList,
  DecisionOutcome,
  DecisionRecord,
  InputChange,
} from "../protocol/decision-record.js";
export type {
  ForgetResult,
  MemoryList,
  MemoryNote,
  MemoryNotes,
  MemoryRecord,
} from "../protocol/memory-types.js";
export type {
  ApprovalList,
  ApprovalRequest,
  ApproverAnswerAccepted,
  ConfirmAnswer,
  ConfirmRequest,
  ExternalResultsRequest,
  InterruptResult,
  RunStarted,
} from "../protocol/reply-types.js";
export type {
  AgentList,
  CreateSessionOptions,
  ServiceHealth,
  SessionDetail,
  SessionInfo,
  SessionPage,
  SessionStatus,
} from "../protocol/session-types.js";
export type {
  AgentProfile,
  SessionEvalCase,
  SessionStateVersion,
  ToolProfile,
  ToolTrial,
} from "../protocol/studio-types.js";
export type { WorkspaceEntry, WorkspaceListing } from "../protocol/workspace-types.js";

/** What `send` takes: plain text (one user message), one user Msg or several. */
export type SendInput = string | Msg | Msg[];
