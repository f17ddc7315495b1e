export { Agent, type ReplyMsg } from "./agent.js";
export { type CompressionResult, compressState } from "./compress-state.js";
export {
  type CompressionPlan,
  type ContextOptions,
  limitImages,
  overTrigger,
  planCompression,
  SUMMARY_INSTRUCTIONS,
  summarise,
  transcriptOf,
} from "./compression.js";
export { OUTCOME_UNKNOWN_NOTE, RETRY_ANSWERER, retryAnswer } from "./effects.js";
export { ReplyStateError, SessionBusyError } from "./errors.js";
export {
  type Guardrail,
  type GuardrailCheck,
  type GuardrailFinding,
  type GuardrailOptions,
  type GuardrailStage,
  type GuardrailTrip,
  type GuardrailVerdict,
  runGuardrails,
  tripOf,
  tripText,
} from "./guardrail.js";
export type {
  AgentEventInit,
  Middleware,
  MiddlewareContext,
  ModelCallRequest,
  PermissionRequest,
  ToolCallOutcome,
  ToolCallRequest,
} from "./middleware.js";
export { composeHooks } from "./middleware-runner.js";
export { responseFormatFor, type StructuredOutputMode } from "./native-structured-output.js";
export { DEADLINE, expiredAsks } from "./pause-deadlines.js";
export { CUT_OFF_NOTE, cutOffEnding, recoverCutOffReply } from "./recover.js";
export {
  type ForkOptions,
  type OpenSessionOptions,
  Session,
  type SessionCheckpointOptions,
} from "./session.js";
export { STRUCTURED_OUTPUT_HINT, STRUCTURED_OUTPUT_TOOL, structuredOutputTool } from "./structured-output.js";
export { replyTaint, taintReply } from "./taint-marks.js";
export type { TaintOptions, TaintSource } from "./taint-options.js";
export type { TokenCounter, TriggerCount } from "./token-count.js";
export type { TryToolOptions } from "./try-tool.js";
export type { AgentOptions, CheckpointReason, PermissionDecider, ReplyInput, ReplyOptions } from "./types.js";
