export * from "./chunkers/index.js";
export * from "./errors.js";
export * from "./filter.js";
export * from "./readers/index.js";
export * from "./similarity.js";
export * from "./stores/memory-vector-store.js";
export * from "./types.js";
