export * from "./gen-ai.js";
export * from "./jsonl-trace-middleware.js";
export * from "./jsonl-writer.js";
export * from "./tracing-middleware.js";
