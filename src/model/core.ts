export { estimateTextTokens, estimateTokens } from "./estimate-tokens.js";
export {
  type BatchedChatStream,
  type BuiltinTool,
  type ChatChunk,
  type ChatDelta,
  type ChatFinal,
  type ChatModel,
  type ChatOptions,
  type ContentBlock,
  isBatchedStream,
  type JsonSchema,
  type ModelStopReason,
  type NativeStructuredOutput,
  type ResponseFormat,
  type SamplingOptions,
  type ToolChoice,
  type ToolSchema,
} from "./types.js";
