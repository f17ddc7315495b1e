import type { Hono } from "hono";
import type { EvalRunList } from "../../../protocol/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceVariables } from "./auth.js";
import { EVALS_OFF_HINT, type EvalReports } from "./eval-reports.js";
import { routesFrom } from "./routes-from.js";

/**
 * GET /v1/evals/runs and /v1/evals/runs/{id}: the eval reports under the config's `evals.reports`
 * (the studio's Evals page). Without `evals` the list is empty with a hint, and a run is a 404.
 */
export function evalRoutes(reports: EvalReports | undefined): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    listEvalRuns: async (c) => {
      const list: EvalRunList = reports
        ? await reports.list()
        : { runs: [], truncated: false, hint: EVALS_OFF_HINT };
      return c.json(list);
    },
    getEvalRun: async (c, request) => {
      if (!reports) throw new RequestError("not_found", EVALS_OFF_HINT);
      return c.json(await reports.get(request.param("id")));
    },
  });
}
