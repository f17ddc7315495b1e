export * from "./client.js";
export * from "./config.js";
export * from "./content.js";
export * from "./errors.js";
export * from "./register.js";
export * from "./tool.js";
