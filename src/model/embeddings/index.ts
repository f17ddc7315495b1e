export {
  BatchingEmbeddingModel,
  type EmbeddingBatch,
  type EmbeddingModelOptions,
} from "./batching-embedding-model.js";
export {
  DashScopeEmbedding,
  type DashScopeEmbeddingOptions,
  dashScopeEmbeddingProvider,
} from "./dashscope-embedding.js";
export { GeminiEmbedding, type GeminiEmbeddingOptions, geminiEmbeddingProvider } from "./gemini-embedding.js";
export { OllamaEmbedding, type OllamaEmbeddingOptions, ollamaEmbeddingProvider } from "./ollama-embedding.js";
export {
  OpenAIEmbedding,
  type OpenAIEmbeddingOptions,
  openAIEmbeddingProvider,
  openAIPresetEmbeddingProviders,
} from "./openai-embedding.js";
