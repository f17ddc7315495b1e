import { type Context, Hono } from "hono";
import type { z } from "zod";
import {
  ROUTE_NAMES,
  type Route,
  type RouteName,
  SERVICE_ROUTES,
  type ServiceRoutes,
} from "../../../protocol/index.js";
import type { ServiceVariables } from "./auth.js";
import { readBody } from "./read-body.js";

export type ServiceContext = Context<{ Variables: ServiceVariables }>;

/** A route's JSON body once validated (the schema's output). */
export type ParsedBody<N extends RouteName> = ServiceRoutes[N] extends {
  body: { kind: "json"; schema: infer S };
}
  ? S extends z.ZodType
    ? z.output<S>
    : never
  : never;

/** What a handler gets besides Hono's context: its body, read and validated by the table's schema. */
export interface RouteRequest<N extends RouteName> {
  /** Reads the JSON body once and validates it (400 naming the bad field; 415 for another type). */
  body(): Promise<ParsedBody<N>>;
  /** A path parameter (`{id}` in the table's path). */
  param(name: string): string;
}

export type RouteHandler<N extends RouteName> = (
  c: ServiceContext,
  request: RouteRequest<N>,
) => Response | Promise<Response>;

/** Handlers by route name: a key that is not in SERVICE_ROUTES does not compile. */
export type RouteHandlers<N extends RouteName> = { [K in N]: RouteHandler<K> };

/** `/v1/sessions/{id}` → Hono's `/v1/sessions/:id`. */
export const honoPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

/**
 * The one place routes register: each handler at its table entry's method and path, in the table's
 * order (a fixed path before a parameter). Every route module builds its Hono app with this.
 */
export function routesFrom<N extends RouteName>(
  handlers: RouteHandlers<N>,
): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();
  const byName = handlers as unknown as Partial<Record<RouteName, RouteHandler<RouteName>>>;
  for (const name of ROUTE_NAMES) {
    const handler = byName[name];
    if (!handler) continue;
    const route: Route = SERVICE_ROUTES[name];
    const body = route.body?.kind === "json" ? route.body : undefined;
    app.on(route.method, honoPath(route.path), (c) =>
      handler(c, {
        body: () =>
          body
            ? (readBody(c, body.schema, body.label) as Promise<never>)
            : Promise.reject(new TypeError(`${name} takes no JSON body`)),
        param: (param) => c.req.param(param) ?? "",
      }),
    );
  }
  return app;
}
