export * from "./blocks.js";
export * from "./errors.js";
export * from "./id.js";
export * from "./msg.js";
export * from "./schema.js";
