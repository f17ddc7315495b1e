export * from "./anthropic-cache.js";
export { type AnthropicFormatOptions, formatAnthropic } from "./anthropic-format.js";
export { AnthropicModel, type AnthropicModelOptions, anthropicProvider } from "./anthropic-model.js";
export { AnthropicStreamParser, anthropicStopReason } from "./anthropic-stream.js";
export type * from "./anthropic-wire.js";
