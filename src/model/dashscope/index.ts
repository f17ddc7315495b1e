export { DASHSCOPE_MEDIA, type DashScopeFormatOptions, formatDashScope } from "./dashscope-format.js";
export { DashScopeModel, type DashScopeModelOptions, dashScopeProvider } from "./dashscope-model.js";
export { DashScopeStreamParser, dashScopeErrorType, dashScopeStopReason } from "./dashscope-stream.js";
export type {
  DashScopeContentItem,
  DashScopeMessage,
  DashScopeRequest,
  DashScopeToolCall,
} from "./dashscope-wire.js";
