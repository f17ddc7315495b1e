export type {
  BudgetStanding,
  SpendLimit,
  SpendPeriod,
  SpendScope,
  SpendStatus,
  SpendUnit,
} from "./budget-types.js";
export { type ConfirmResult, ConfirmResultSchema } from "./confirm-result.js";
export {
  DECISION_CSV_COLUMNS,
  type DecisionExportFormat,
  decisionsFromCsv,
  decisionsFromJsonl,
  decisionsToCsv,
  decisionsToJsonl,
  type ExportedDecision,
} from "./decision-export.js";
export {
  ANSWER_CHANNELS,
  type Answerer,
  type DecisionChannel,
  type DecisionList,
  type DecisionOutcome,
  type DecisionRecord,
  type InputChange,
} from "./decision-record.js";
export {
  type ErrorBody,
  ErrorBodySchema,
  SERVICE_ERROR_TYPES,
  type ServiceErrorKind,
  type ServiceErrorType,
} from "./error-body.js";
export { ANSWER_OF_KIND, type ErrorAnswer, kindOfAnswer } from "./error-status.js";
export type {
  EvalCaseRun,
  EvalReportBody,
  EvalRunDetail,
  EvalRunInfo,
  EvalRunList,
  EvalRunScore,
} from "./eval-types.js";
export type {
  IndexJob,
  IndexJobStatus,
  KnowledgeBaseInfo,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSearchOptions,
} from "./knowledge-types.js";
export type { ForgetResult, MemoryList, MemoryNote, MemoryNotes, MemoryRecord } from "./memory-types.js";
export { openApiDocument } from "./openapi-document.js";
export type {
  ApprovalList,
  ApprovalRequest,
  ApproverAnswerAccepted,
  ConfirmAnswer,
  ConfirmRequest,
  ExternalResultsRequest,
  InterruptResult,
  RunStarted,
} from "./reply-types.js";
export {
  ConfirmAnswerSchema,
  ConfirmBody,
  CreateKnowledgeBaseBody,
  CreateSessionBody,
  EditMessageBody,
  ExternalResultsBody,
  ForkBody,
  InterruptBody,
  KnowledgeSearchBody,
  MAX_BODY_DEPTH,
  MAX_METADATA_BYTES,
  MAX_METADATA_DEPTH,
  RenameSessionBody,
  ReplyBody,
  RewindBody,
  RunToolBody,
} from "./request-schemas.js";
export {
  answer,
  type HttpMethod,
  jsonBody,
  type QueryParameter,
  type Route,
  type RouteAnswer,
  type RouteBody,
} from "./route.js";
export {
  type CallableRouteAddress,
  type RouteAddress,
  type RouteArgs,
  type RouteAt,
  type RouteCallArgs,
  type RouteQuery,
  routeRequest,
} from "./route-call.js";
export {
  ROUTE_NAMES,
  type RouteName,
  type RouteParams,
  type RouteRequestBody,
  type RouteResponse,
  SERVICE_ROUTES,
  type ServiceRoutes,
} from "./route-table.js";
export type {
  AgentList,
  CreateSessionOptions,
  ServiceHealth,
  SessionDetail,
  SessionInfo,
  SessionPage,
  SessionParent,
  SessionStatus,
} from "./session-types.js";
export type {
  AgentProfile,
  SessionEvalCase,
  SessionStateVersion,
  ToolProfile,
  ToolTrial,
} from "./studio-types.js";
export {
  TASK_ID_PATTERN,
  TASK_STATUSES,
  TASK_UPDATED,
  type Task,
  TaskSchema,
  type TaskStatus,
  type TaskUpdate,
} from "./task.js";
export type { CheckpointInfo, CheckpointList, ForkAnswer, RewindAnswer } from "./time-travel-types.js";
export {
  AGENTSCOPE_EVENT_PART,
  AGENTSCOPE_EVENTS_HEADER,
  type AgentscopeMessageMetadata,
  UI_MESSAGE_STREAM_HEADER,
  UI_MESSAGE_STREAM_VERSION,
  type UiFinishReason,
  type UiMessageChunk,
  type UiMessageUsage,
  uiChatPath,
} from "./ui-message-stream.js";
export type { WorkspaceEntry, WorkspaceListing } from "./workspace-types.js";
