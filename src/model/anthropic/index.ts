export { type AnthropicCacheOptions, applyCacheControl } from "./anthropic-cache.js";
export { type AnthropicFormatOptions, formatAnthropic } from "./anthropic-format.js";
export { AnthropicModel, type AnthropicModelOptions, anthropicProvider } from "./anthropic-model.js";
export { AnthropicStreamParser, anthropicStopReason } from "./anthropic-stream.js";
export type {
  AnthropicCacheControl,
  AnthropicDocumentPart,
  AnthropicDocumentSource,
  AnthropicImageMediaType,
  AnthropicImagePart,
  AnthropicMediaPart,
  AnthropicMessage,
  AnthropicPart,
  AnthropicRedactedThinkingPart,
  AnthropicRequest,
  AnthropicSource,
  AnthropicTextPart,
  AnthropicThinkingPart,
  AnthropicTool,
  AnthropicToolChoice,
  AnthropicToolResultPart,
  AnthropicToolUsePart,
} from "./anthropic-wire.js";
