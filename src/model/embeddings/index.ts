export {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";
export { DashScopeEmbedding, type DashScopeEmbeddingOptions } from "./dashscope-embedding.js";
export { GeminiEmbedding, type GeminiEmbeddingOptions } from "./gemini-embedding.js";
export { OllamaEmbedding, type OllamaEmbeddingOptions } from "./ollama-embedding.js";
export { OpenAIEmbedding, type OpenAIEmbeddingOptions } from "./openai-embedding.js";
