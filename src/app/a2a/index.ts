export * from "./a2a-routes.js";
export * from "./agent-card.js";
export * from "./service-executor.js";
export * from "./task-events.js";
