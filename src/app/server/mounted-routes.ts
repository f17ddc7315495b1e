import type { Hono } from "hono";
import { a2aRoutes } from "../a2a/index.js";
import { aguiRoutes } from "../agui/index.js";
import { bridgeRoutes } from "../bridges/index.js";
import { consoleRoutes } from "../console/index.js";
import type { OpenedBudget } from "./config/build-budget.js";
import type { ServiceMemory } from "./config/build-memory.js";
import type { ServiceVariables } from "./http/auth.js";
import { budgetRoutes } from "./http/budget-routes.js";
import type { EvalReports } from "./http/eval-reports.js";
import { evalRoutes } from "./http/eval-routes.js";
import { knowledgeRoutes } from "./http/knowledge-routes.js";
import type { KnowledgeService } from "./http/knowledge-service.js";
import { memoryRoutes } from "./http/memory-routes.js";
import { studioRoutes } from "./http/studio-routes.js";
import { timeTravelRoutes } from "./http/time-travel-routes.js";
import { workspaceRoutes } from "./http/workspace-routes.js";
import type { ServiceRuntime } from "./runtime/service-runtime.js";
import type { WorkspaceManager } from "./workspace-manager.js";

/** The services the routes beside the sessions serve; absent ones mount nothing. */
export interface MountedServices {
  memory: ServiceMemory;
  workspaces?: WorkspaceManager | undefined;
  knowledge?: KnowledgeService | undefined;
  /** Spend budgets: GET /v1/budget reads them (no lines without). */
  budget?: OpenedBudget | undefined;
  /** Eval reports for the studio (config `evals.reports`); without, the list says how to turn it on. */
  evals?: EvalReports | undefined;
  /** Mount the AG-UI and A2A endpoints and the web console (default true). */
  optional?: boolean;
}

/**
 * The routes mounted next to the sessions (`createApp`'s `mounts`, under the same /v1 auth):
 * memories, the AG-UI endpoint, A2A, the web console (`/`), workspace files and knowledge bases.
 * Each builds its Hono app from the route table (`routesFrom`); a new front-end goes here.
 */
export function mountedRoutes(
  runtime: ServiceRuntime,
  services: MountedServices,
): Array<Hono<{ Variables: ServiceVariables }> | Hono> {
  const mounts: Array<Hono<{ Variables: ServiceVariables }> | Hono> = [
    memoryRoutes(services.memory),
    timeTravelRoutes(runtime),
    budgetRoutes(services.budget),
    evalRoutes(services.evals),
  ];
  mounts.push(studioRoutes(runtime, services.workspaces));
  if (services.optional !== false)
    mounts.push(aguiRoutes(runtime), a2aRoutes(runtime), ...bridgeRoutes(runtime), consoleRoutes());
  if (services.workspaces) mounts.push(workspaceRoutes(runtime, services.workspaces));
  if (services.knowledge) mounts.push(knowledgeRoutes(services.knowledge));
  return mounts;
}
