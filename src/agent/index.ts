export * from "./agent.js";
export * from "./errors.js";
export * from "./recover.js";
export * from "./structured-output.js";
export * from "./middleware.js";
export * from "./types.js";
