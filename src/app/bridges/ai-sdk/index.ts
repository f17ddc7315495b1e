export { replyReplayPoint } from "./reply-replay.js";
export { chatTurn, type UiChatRequest, UiChatRequestSchema, type UiChatTurn } from "./ui-chat-request.js";
export { UI_SESSION_HEADER, uiChatRoutes } from "./ui-chat-routes.js";
export { uiMessageFrames } from "./ui-message-frames.js";
export { finishUi, startUi, translateUiEvent, type UiTranslation, uiDone } from "./ui-message-translation.js";
