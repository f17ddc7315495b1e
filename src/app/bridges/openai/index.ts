export { ChatCompletionRequestSchema, chatInput, checkChatRequest } from "./chat-request.js";
export {
  type AgentscopeExtension,
  type ChatDelta,
  type ChatFinish,
  type ChatTranslation,
  type ChatUsage,
  finishChat,
  type PendingToolCall,
  startChat,
  translateChatEvent,
} from "./chat-translation.js";
export { type CompletionHead, chatCompletion, chatFrames } from "./completion-body.js";
export { openaiRoutes, PENDING_HEADER, SESSION_HEADER } from "./openai-routes.js";
