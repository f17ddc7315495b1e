export { formatOllama, type OllamaFormatOptions } from "./ollama-format.js";
export { OllamaModel, type OllamaModelOptions, ollamaBaseUrl, ollamaProvider } from "./ollama-model.js";
export { OllamaStreamParser, ollamaStopReason } from "./ollama-stream.js";
export type { OllamaMessage, OllamaRequest, OllamaToolCall } from "./ollama-wire.js";
