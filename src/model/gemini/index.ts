export { formatGemini, GEMINI_MEDIA, type GeminiFormatOptions, geminiMediaPart } from "./gemini-format.js";
export { GeminiModel, type GeminiModelOptions, geminiProvider } from "./gemini-model.js";
export { type GeminiSchema, sanitizeGeminiSchema } from "./gemini-schema.js";
export { GeminiStreamParser, geminiStopReason } from "./gemini-stream.js";
export type { GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequest } from "./gemini-wire.js";
