export { chatToolChoice, formatOpenAIChat, mediaPart, type OpenAIChatFormatOptions } from "./chat-format.js";
export {
  OpenAIChatModel,
  type OpenAIChatModelOptions,
  openAIChatProvider,
  openAICompatible,
  openAIPresetProviders,
} from "./chat-model.js";
export { mapChatFinishReason, OpenAIChatStreamParser } from "./chat-stream.js";
export type {
  OpenAIChatContentPart,
  OpenAIChatMessage,
  OpenAIChatRequest,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
} from "./chat-wire.js";
export { OpenAIBaseModel, OpenAICompatibleModel } from "./compatible-model.js";
export { type OpenAIConnectionOptions, resolveConnection } from "./connection.js";
export { OPENAI_PRESETS, type OpenAIPreset, type OpenAIPresetName } from "./presets.js";
export {
  formatOpenAIResponses,
  type OpenAIResponsesFormatOptions,
  responsesMediaPart,
  responsesToolChoice,
} from "./responses-format.js";
export {
  OpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
  openAIResponsesProvider,
} from "./responses-model.js";
export { OpenAIResponsesStreamParser } from "./responses-stream.js";
export type {
  OpenAIResponsesContentPart,
  OpenAIResponsesInputItem,
  OpenAIResponsesRequest,
  OpenAIResponsesToolChoice,
} from "./responses-wire.js";
