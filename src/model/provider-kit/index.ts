/**
 * The provider kit (`agentscope/model/kit`): what every built-in provider is made of, for building
 * your own. Extend ProviderModel (endpoint, headers, format, parser; optionally countInputTokens),
 * export a ModelProviderDefinition, and `registerModelProvider` it for `provider:model` specs.
 * See docs/providers.md, "Your own provider".
 */

export {
  attachmentPlaceholder,
  dataUrl,
  decodeText,
  type MediaKind,
  mediaKind,
  mediaTypeOf,
} from "../media.js";
// History before the formatter (the model does this; formatters get normalised history)
export { MISSING_TOOL_RESULT, type NormalizeOptions, normalizeMessages } from "../normalize.js";
export { registerModelProvider, unregisterModelProvider } from "../provider-registry.js";
export {
  errorFromBody,
  malformedChunk,
  ProviderError,
  providerMessage,
  streamCut,
} from "../transport/errors.js";
export type { HttpRequest, TransportOptions, WireFormat, WireParser } from "../transport/types.js";
export type {
  ChatChunk,
  ChatDelta,
  ChatFinal,
  ChatModel,
  ChatOptions,
  ModelStopReason,
  NativeStructuredOutput,
  ResponseFormat,
  ToolChoice,
  ToolSchema,
} from "../types.js";
// Settings: keys, base URLs
export {
  httpBaseURL,
  ollamaHostURL,
  plainBaseURL,
  unversionedBaseURL,
  v1BaseURL,
  versionedBaseURL,
} from "./base-url.js";
// Formatting helpers
export { type BuiltinToolMapping, builtinToolsFor } from "./builtin-tools.js";
// Stream parsing
export { ContentAssembler, type FinalBlock, stopReasonWithTools } from "./content-assembler.js";

// Token counting and streams
export { countOrEstimate } from "./count-tokens.js";
export { lazyStream } from "./lazy-stream.js";
export { acceptsMedia, base64Of, mainTypeOf } from "./media.js";
// The base and the definition
export type {
  EmbeddingProviderDefinition,
  ModelProviderDefinition,
  ModelSpecSettings,
} from "./provider-definition.js";
export {
  type ProviderCall,
  type ProviderEndpoint,
  ProviderModel,
  type ProviderModelOptions,
} from "./provider-model.js";
export { jsonInput, outputText, providerCall, providerResult, providerRunText } from "./provider-runs.js";
export { requestBody } from "./request-body.js";
export { checkResponseFormat, openAIJsonSchema, unsupportedResponseFormat } from "./response-format.js";
export {
  applySampling,
  mergeSampling,
  type SamplingField,
  type SamplingWireNames,
  section,
} from "./sampling.js";
export {
  baseURLSetting,
  type EndpointDefaults,
  joinUrl,
  providerEndpoint,
  requireApiKey,
  setting,
} from "./settings.js";
export { parseToolInput } from "./tool-input.js";
export { type SplitToolOutput, splitToolOutput, toolOutputText } from "./tool-output.js";
