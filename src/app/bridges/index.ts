import type { Hono } from "hono";
import type { ServiceVariables } from "../server/http/auth.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import { mcpRoutes } from "./mcp/index.js";
import { openaiRoutes } from "./openai/index.js";

export * from "./mcp/index.js";
export * from "./openai/index.js";

/** The bridges to other protocols' clients, mounted next to /v1 (same auth): OpenAI chat completions, MCP. */
export function bridgeRoutes(runtime: ServiceRuntime): Array<Hono<{ Variables: ServiceVariables }>> {
  return [openaiRoutes(runtime), mcpRoutes(runtime)];
}
