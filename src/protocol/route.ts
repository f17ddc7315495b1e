import type { z } from "zod";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/** A query parameter of a route (all are optional). */
export interface QueryParameter {
  description: string;
  type: "string" | "integer";
  minimum?: number;
  maximum?: number;
}

/** What a route takes as its body. */
export type RouteBody =
  /** JSON validated by `schema`; `label` names the body in errors ("invalid confirmation: ..."). */
  | { kind: "json"; schema: z.ZodType; label: string; required: boolean }
  /** Multipart form fields (uploads). */
  | { kind: "multipart"; description: string }
  /** JSON the route's own protocol validates (AG-UI's RunAgentInput, A2A's JSON-RPC). */
  | { kind: "foreign"; description: string };

/** How a route answers when it succeeds. `T` is the JSON body's type (phantom: types only). */
export interface RouteAnswer<T = unknown> {
  status: 200 | 201 | 202 | 204;
  description: string;
  /** `json` (the default), an SSE stream, or raw bytes. */
  content?: "json" | "sse" | "json-or-sse" | "bytes";
  /** Never set: carries `T` for RouteResponse. */
  readonly type?: T;
}

/**
 * One route of the service: the HTTP method, the path (OpenAPI style, `{id}` for a parameter), the
 * body it takes, what it answers, and whether it is under the bearer auth. The Hono routes register
 * from these (`routesFrom`), `/v1/openapi.json` is generated from them, and the typed client's
 * request and response types come from here.
 */
export interface Route {
  method: HttpMethod;
  path: `/v1/${string}`;
  summary: string;
  /** `bearer`: under the /v1 auth (every user sees only their own things); `none`: open. */
  auth: "bearer" | "none";
  body?: RouteBody;
  query?: Record<string, QueryParameter>;
  /** Request headers the route reads (e.g. `Last-Event-ID`). */
  headers?: Record<string, string>;
  answer: RouteAnswer;
  /** Refusals besides the common ones (400, 401, 404, 409, 413, 503; 415 with a JSON body). */
  alsoAnswers?: Array<{ status: 429; description: string }>;
}

/** A success answer whose JSON body is a `T`. */
export function answer<T>(
  status: RouteAnswer["status"],
  description: string,
  content?: RouteAnswer["content"],
): RouteAnswer<T> {
  return content ? { status, description, content } : { status, description };
}

/** A JSON body validated by `schema` (named `label` in errors). */
export function jsonBody<S extends z.ZodType>(
  schema: S,
  label: string,
  required = false,
): { kind: "json"; schema: S; label: string; required: boolean } {
  return { kind: "json", schema, label, required };
}
