export * from "./apply-event.js";
export * from "./base64.js";
export * from "./create.js";
export * from "./schema.js";
export * from "./types.js";
