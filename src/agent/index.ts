export * from "./agent.js";
export * from "./compress-state.js";
export * from "./compression.js";
export * from "./errors.js";
export * from "./middleware.js";
export { composeHooks } from "./middleware-runner.js";
export * from "./recover.js";
export * from "./structured-output.js";
export * from "./types.js";
