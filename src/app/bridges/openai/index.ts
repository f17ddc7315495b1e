export { ChatCompletionRequestSchema, chatInput, checkChatRequest } from "./chat-request.js";
export * from "./chat-translation.js";
export { type CompletionHead, chatCompletion, chatFrames } from "./completion-body.js";
export { openaiRoutes, PENDING_HEADER, SESSION_HEADER } from "./openai-routes.js";
