export * from "./core.js";
export * from "./transport/index.js";
export * from "./normalize.js";
