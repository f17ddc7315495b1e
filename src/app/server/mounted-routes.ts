import type { Hono } from "hono";
import { a2aRoutes } from "../a2a/index.js";
import { aguiRoutes } from "../agui/index.js";
import { consoleRoutes } from "../console/index.js";
import type { ServiceVariables } from "./http/auth.js";
import type { ServiceRuntime } from "./runtime/service-runtime.js";

/**
 * The routes mounted next to /v1: the AG-UI endpoint (POST /v1/agui, under the same auth), the A2A
 * endpoint (/v1/a2a/<agent>, same auth) and the web
 * console (`/`). Add further front-ends here.
 */
export function mountedRoutes(runtime: ServiceRuntime): Array<Hono<{ Variables: ServiceVariables }> | Hono> {
  return [aguiRoutes(runtime), a2aRoutes(runtime), consoleRoutes()];
}
