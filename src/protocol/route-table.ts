import type { Route } from "./route.js";
import { BRIDGE_ROUTES } from "./routes/bridges.js";
import { BUDGET_ROUTES } from "./routes/budget.js";
import { EVAL_ROUTES } from "./routes/evals.js";
import { KNOWLEDGE_ROUTES } from "./routes/knowledge.js";
import { MEMORY_ROUTES } from "./routes/memory.js";
import { REPLY_ROUTES } from "./routes/replies.js";
import { SERVICE_INFO_ROUTES } from "./routes/service.js";
import { SESSION_ROUTES } from "./routes/sessions.js";
import { STUDIO_ROUTES } from "./routes/studio.js";
import { TIME_TRAVEL_ROUTES } from "./routes/time-travel.js";
import { WORKSPACE_ROUTES } from "./routes/workspace.js";

/**
 * Every route of the service, one area file each in `routes/` (the area's entries, and beside them
 * the request schemas and response types a new route of it brings), in the order they register: the
 * areas in this order, each area's entries in its own (a fixed path before a parameter at the same
 * place: `/v1/memories/notes` before `/v1/memories/{id}`). Adding a route: an entry in its area file,
 * its handler (by the same name) in the route module that serves the area, a test, and the docs.
 */
export const SERVICE_ROUTES = {
  ...SERVICE_INFO_ROUTES,
  ...SESSION_ROUTES,
  ...REPLY_ROUTES,
  ...TIME_TRAVEL_ROUTES,
  ...WORKSPACE_ROUTES,
  ...STUDIO_ROUTES,
  ...EVAL_ROUTES,
  ...MEMORY_ROUTES,
  ...BUDGET_ROUTES,
  ...KNOWLEDGE_ROUTES,
  ...BRIDGE_ROUTES,
} as const satisfies Record<string, Route>;

export type ServiceRoutes = typeof SERVICE_ROUTES;
/** A route's name: the key of its entry in SERVICE_ROUTES, and of its handler. */
export type RouteName = keyof ServiceRoutes;

/** The JSON body a route's success answer carries. */
export type RouteResponse<N extends RouteName> = ServiceRoutes[N]["answer"] extends {
  readonly type?: infer T;
}
  ? T
  : never;

/** The JSON body a route takes (what a client sends: the schema's input), `undefined` when none. */
export type RouteRequestBody<N extends RouteName> = ServiceRoutes[N] extends {
  body: { kind: "json"; schema: infer S };
}
  ? S extends { _zod: { input: infer I } }
    ? I
    : never
  : undefined;

type ParamsOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<Rest>
  : unknown;

/** The path parameters of a route, e.g. `{ id: string }` for `/v1/sessions/{id}`. */
export type RouteParams<N extends RouteName> =
  ParamsOf<ServiceRoutes[N]["path"]> extends infer P ? { [K in keyof P]: P[K] } : never;

/** The route names in registration order. */
export const ROUTE_NAMES = Object.keys(SERVICE_ROUTES) as RouteName[];
