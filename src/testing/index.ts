export * from "./hash-embedding.js";
export * from "./scripted-model.js";
