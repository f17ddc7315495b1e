export * from "./core.js";
export * from "./transport/index.js";
export * from "./normalize.js";
export * from "./media.js";
export * from "./model-info.js";
export * from "./openai/index.js";
export * from "./local-files.js";
