import type { RouteAnswer } from "./route.js";
import type { RouteName, RouteParams, RouteRequestBody, ServiceRoutes } from "./route-table.js";

/**
 * Where a route is: its method and path as the table writes them, e.g. `"PATCH /v1/sessions/{id}"`.
 * A call names a route by its address rather than by its name, so a caller needs no copy of the
 * table at run time (the table holds the body schemas, which a browser client does not load).
 */
export type RouteAddress<N extends RouteName = RouteName> = N extends RouteName
  ? `${ServiceRoutes[N]["method"]} ${ServiceRoutes[N]["path"]}`
  : never;

/** The route at an address (the table's name for it). */
export type RouteAt<A extends RouteAddress> = {
  [N in RouteName]: RouteAddress<N> extends A ? N : never;
}[RouteName];

/** The addresses of the routes that answer JSON or bytes (an SSE-only route has a stream of its own). */
export type CallableRouteAddress = {
  [N in RouteName]: ServiceRoutes[N]["answer"] extends RouteAnswer<infer T>
    ? [T] extends [never]
      ? never
      : RouteAddress<N>
    : never;
}[RouteName];

/** An object with no fields: `Empty extends T` when every field of `T` is optional. */
type Empty = Record<never, never>;

/** The query values of a call; `undefined` leaves a parameter out. */
export type RouteQuery = Record<string, string | number | boolean | undefined>;

type BodyArgs<N extends RouteName> = ServiceRoutes[N] extends { body: { kind: "json" } }
  ? Empty extends RouteRequestBody<N>
    ? { body?: RouteRequestBody<N> }
    : { body: RouteRequestBody<N> }
  : ServiceRoutes[N] extends { body: { kind: "multipart" } }
    ? { body: FormData }
    : ServiceRoutes[N] extends { body: { kind: "foreign" } }
      ? { body: unknown }
      : { body?: undefined };

type ParamArgs<N extends RouteName> =
  Empty extends RouteParams<N> ? { params?: RouteParams<N> } : { params: RouteParams<N> };

/** What one call of route `N` takes: its path parameters, its query, its body, as the table types them. */
export type RouteArgs<N extends RouteName> = ParamArgs<N> &
  BodyArgs<N> & { query?: RouteQuery; signal?: AbortSignal };

/** A call's arguments as a rest tuple: optional when the route needs nothing. */
export type RouteCallArgs<N extends RouteName> =
  Empty extends RouteArgs<N> ? [args?: RouteArgs<N>] : [args: RouteArgs<N>];

/**
 * The method and the request path (parameters encoded, query appended) of a call to `address`.
 * A parameter the path names but `params` lacks is a TypeError naming it.
 */
export function routeRequest(
  address: RouteAddress,
  params: Record<string, string> = {},
  query: RouteQuery = {},
): { method: ServiceRoutes[RouteName]["method"]; path: string } {
  const space = address.indexOf(" ");
  const method = address.slice(0, space) as ServiceRoutes[RouteName]["method"];
  let path = address.slice(space + 1).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== "string" || value === "")
      throw new TypeError(`${address}: the path parameter "${name}" is missing`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  if (text) path += `?${text}`;
  return { method, path };
}
