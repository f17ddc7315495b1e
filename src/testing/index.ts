export { HashEmbedding, type HashEmbeddingOptions } from "./hash-embedding.js";
export {
  type ScriptedCall,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedTurn,
} from "./scripted-model.js";
