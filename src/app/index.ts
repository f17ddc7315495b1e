// agentscope/app: the agent service (Hono + SSE), its runtime and backends, config loading, the demo agent.

export { a2aRoutes, agentCardOf, ServiceAgentExecutor } from "./a2a/index.js";
export { type ChatClient, httpChatClient, runtimeChatClient } from "./cli/chat-client.js";
export { EventRenderer, type RenderOptions } from "./cli/render-events.js";
export { demoAgentConfig, demoModel, demoTools, prepareDemoWorkspace } from "./demo/demo-agent.js";
export { type CreateAppOptions, createApp } from "./server/app.js";
export { createBackend } from "./server/backend/create-backend.js";
export { FencedError } from "./server/backend/fenced-error.js";
export { memoryBackend } from "./server/backend/memory-backend.js";
export type {
  AbandonedLease,
  BackendOptions,
  BusMessage,
  EventLog,
  LoggedEvent,
  RunCheckpoint,
  RunEnd,
  RunEndResult,
  RunLease,
  RunLocks,
  ServiceBackend,
  ServiceBus,
  SessionDirectory,
  SessionRecord,
  SessionRecordPage,
} from "./server/backend/types.js";
export { buildAgents } from "./server/config/build-agents.js";
export { loadServiceConfig } from "./server/config/load-config.js";
export {
  type AgentConfig,
  AgentConfigSchema,
  ConfigError,
  parseServiceConfig,
  type ServiceConfig,
  ServiceConfigSchema,
} from "./server/config/service-config.js";
export {
  bearerAuth,
  LOCAL_USER,
  parseTokenRoles,
  parseTokens,
  type ServiceVariables,
} from "./server/http/auth.js";
export { readBody } from "./server/http/read-body.js";
export { resumePoint, type SseSource, sseFrame, sseResponse } from "./server/http/sse.js";
export { HttpError, type HttpErrorType, toHttpError } from "./server/http-error.js";
export { RequestError } from "./server/request-error.js";
export {
  Follower,
  type FollowItem,
  type FollowOptions,
  type FollowSink,
  type StopSignal,
} from "./server/runtime/follower.js";
export type { RunHandle } from "./server/runtime/run-execution.js";
export type { ServiceLog, ServiceLogEntry } from "./server/runtime/service-log.js";
export {
  type ConfirmAnswer,
  type CreateSessionOptions,
  type FollowSessionOptions,
  type ServiceAgentOptions,
  ServiceRuntime,
  type ServiceRuntimeOptions,
} from "./server/runtime/service-runtime.js";
export type { SessionStatus } from "./server/runtime/session-status.js";
export { Sweeper, type SweepJob } from "./server/runtime/sweeper.js";
export { type RunningServer, type StartServerOptions, startServer } from "./server/start-server.js";
