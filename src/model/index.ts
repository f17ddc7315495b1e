export { type AnthropicCacheOptions, applyCacheControl } from "./anthropic/anthropic-cache.js";
export { type AnthropicFormatOptions, formatAnthropic } from "./anthropic/anthropic-format.js";
export {
  AnthropicModel,
  type AnthropicModelOptions,
  anthropicProvider,
} from "./anthropic/anthropic-model.js";
export { AnthropicStreamParser, anthropicStopReason } from "./anthropic/anthropic-stream.js";
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
} from "./anthropic/anthropic-wire.js";
export {
  type BatchedChatStream,
  type BuiltinTool,
  type ChatChunk,
  type ChatDelta,
  type ChatFinal,
  type ChatModel,
  type ChatOptions,
  type ContentBlock,
  estimateTextTokens,
  estimateTokens,
  isBatchedStream,
  type JsonSchema,
  type ModelStopReason,
  type NativeStructuredOutput,
  type ResponseFormat,
  type SamplingOptions,
  type ToolChoice,
  type ToolSchema,
} from "./core.js";
export {
  DASHSCOPE_MEDIA,
  type DashScopeFormatOptions,
  formatDashScope,
} from "./dashscope/dashscope-format.js";
export {
  DashScopeModel,
  type DashScopeModelOptions,
  dashScopeProvider,
} from "./dashscope/dashscope-model.js";
export {
  DashScopeStreamParser,
  dashScopeErrorType,
  dashScopeStopReason,
} from "./dashscope/dashscope-stream.js";
export type {
  DashScopeContentItem,
  DashScopeMessage,
  DashScopeRequest,
  DashScopeToolCall,
} from "./dashscope/dashscope-wire.js";
export type { EmbeddingModel, EmbeddingResult, EmbeddingUsage, EmbedOptions } from "./embedding.js";
export { EMBEDDING_PROVIDERS, embeddingFromSpec } from "./embedding-from-spec.js";
export {
  BatchingEmbeddingModel,
  DashScopeEmbedding,
  type DashScopeEmbeddingOptions,
  dashScopeEmbeddingProvider,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
  GeminiEmbedding,
  type GeminiEmbeddingOptions,
  geminiEmbeddingProvider,
  OllamaEmbedding,
  type OllamaEmbeddingOptions,
  OpenAIEmbedding,
  type OpenAIEmbeddingOptions,
  ollamaEmbeddingProvider,
  openAIEmbeddingProvider,
  openAIPresetEmbeddingProviders,
} from "./embeddings/index.js";
export {
  BASE_URL_VARIABLES,
  MODEL_PROVIDERS,
  type ModelSpec,
  modelFromEnvironment,
  modelFromSpec,
  modelProvider,
  normalizeBaseURL,
  parseModelSpec,
  registerModelProvider,
  unregisterModelProvider,
} from "./from-spec.js";
export {
  formatGemini,
  GEMINI_MEDIA,
  type GeminiFormatOptions,
  geminiMediaPart,
} from "./gemini/gemini-format.js";
export { GeminiModel, type GeminiModelOptions, geminiProvider } from "./gemini/gemini-model.js";
export { type GeminiSchema, sanitizeGeminiSchema } from "./gemini/gemini-schema.js";
export { GeminiStreamParser, geminiStopReason } from "./gemini/gemini-stream.js";
export type {
  GeminiContent,
  GeminiFunctionDeclaration,
  GeminiPart,
  GeminiRequest,
} from "./gemini/gemini-wire.js";
export { hasLocalFiles, inlineLocalFiles } from "./local-files.js";
export {
  attachmentPlaceholder,
  dataUrl,
  decodeText,
  type MediaKind,
  mediaKind,
  mediaTypeOf,
} from "./media.js";
export { DEFAULT_CONTEXT_SIZE, type ModelInfo, modelInfo, registerModelInfo } from "./model-info.js";
export { MISSING_TOOL_RESULT, type NormalizeOptions, normalizeMessages } from "./normalize.js";
export { formatOllama, type OllamaFormatOptions } from "./ollama/ollama-format.js";
export {
  OllamaModel,
  type OllamaModelOptions,
  ollamaBaseUrl,
  ollamaProvider,
} from "./ollama/ollama-model.js";
export { OllamaStreamParser, ollamaStopReason } from "./ollama/ollama-stream.js";
export type { OllamaMessage, OllamaRequest, OllamaToolCall } from "./ollama/ollama-wire.js";
export {
  chatToolChoice,
  formatOpenAIChat,
  mediaPart,
  type OpenAIChatFormatOptions,
} from "./openai/chat-format.js";
export {
  OpenAIChatModel,
  type OpenAIChatModelOptions,
  openAIChatProvider,
  openAICompatible,
  openAIPresetProviders,
} from "./openai/chat-model.js";
export { mapChatFinishReason, OpenAIChatStreamParser } from "./openai/chat-stream.js";
export type {
  OpenAIChatContentPart,
  OpenAIChatMessage,
  OpenAIChatRequest,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
} from "./openai/chat-wire.js";
export { OpenAIBaseModel, OpenAICompatibleModel } from "./openai/compatible-model.js";
export { type OpenAIConnectionOptions, resolveConnection } from "./openai/connection.js";
export { OPENAI_PRESETS, type OpenAIPreset, type OpenAIPresetName } from "./openai/presets.js";
export {
  formatOpenAIResponses,
  type OpenAIResponsesFormatOptions,
  responsesMediaPart,
  responsesToolChoice,
} from "./openai/responses-format.js";
export {
  OpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
  openAIResponsesProvider,
} from "./openai/responses-model.js";
export { OpenAIResponsesStreamParser } from "./openai/responses-stream.js";
export type {
  OpenAIResponsesContentPart,
  OpenAIResponsesInputItem,
  OpenAIResponsesRequest,
  OpenAIResponsesToolChoice,
} from "./openai/responses-wire.js";
export {
  BUILTIN_PRICES,
  type FoundPrice,
  type ModelPrice,
  ModelPriceSchema,
  type PricedUsage,
  PricingTable,
  type PricingTableOptions,
  priceUsage,
  pricingTable,
} from "./pricing/index.js";
export { SpecChatModel } from "./spec-chat-model.js";
export {
  abortedError,
  type BodyRead,
  type BodyReader,
  backoffDelay,
  createNdjsonReader,
  createSseReader,
  DEFAULT_MAX_RETRIES,
  defaultTransportName,
  errorFromBody,
  errorFromResponse,
  type FetchFunction,
  fetchTransport,
  type HeaderLookup,
  type HttpRequest,
  type HttpResponse,
  type HttpTransport,
  type JsonRequest,
  jsonHeaders,
  malformedChunk,
  type OnWireEvent,
  ProviderError,
  providerMessage,
  requestJson,
  retryAfterMs,
  type StreamRequest,
  streamChat,
  streamCut,
  type TextDecoderSink,
  TRANSPORT_ENV,
  type TransportChoice,
  type TransportOptions,
  type TransportRequest,
  type WireFormat,
  type WireParser,
} from "./transport/index.js";
