export * from "./agent-state.js";
