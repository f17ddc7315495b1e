export { AgentScopeAttr, GenAI, inputMessagesJson, outputMessagesJson, providerName } from "./gen-ai.js";
export { type JsonlTraceOptions, jsonlTraceMiddleware } from "./jsonl-trace-middleware.js";
export { iterateTrace, readTrace, TraceFileError, TraceWriter, writeTrace } from "./jsonl-writer.js";
export { type TracingOptions, tracingMiddleware } from "./tracing-middleware.js";
