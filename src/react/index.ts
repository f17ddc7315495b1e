export * from "./use-agent-session.js";
