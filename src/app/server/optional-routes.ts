import type { Hono } from "hono";
import type { ServiceVariables } from "./http/auth.js";
import type { ServiceRuntime } from "./runtime/service-runtime.js";

type Routes = Hono<{ Variables: ServiceVariables }>;

async function optional<T>(specifier: string): Promise<T | undefined> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

/**
 * MOUNT POINT for the AG-UI endpoint (src/app/agui: `aguiRoutes(runtime)`, serving POST /v1/agui)
 * and the web console (src/app/console: `consoleRoutes()`, serving `/`). Each is mounted at `/` when
 * its module exists; the /v1 auth applies to their /v1 paths.
 */
export async function optionalRoutes(runtime: ServiceRuntime): Promise<Routes[]> {
  const mounts: Routes[] = [];
  const agui = await optional<{ aguiRoutes?: (runtime: ServiceRuntime) => Routes }>("../agui/index.js");
  if (agui?.aguiRoutes) mounts.push(agui.aguiRoutes(runtime));
  const web = await optional<{ consoleRoutes?: () => Routes }>("../console/index.js");
  if (web?.consoleRoutes) mounts.push(web.consoleRoutes());
  return mounts;
}
