import { Hono } from "hono";
import { delegatesOf } from "../../multiagent/index.js";
import { openApiDocument } from "../../protocol/index.js";
import { auditRoutes } from "./http/audit-routes.js";
import { bearerAuth, type ServiceVariables } from "./http/auth.js";
import { hostGuard, LOOPBACK_HOSTS, originGuard } from "./http/browser-guard.js";
import { sendBodiesDirectly } from "./http/direct-body.js";
import { errorResponse } from "./http/error-response.js";
import { limitBodies } from "./http/node-body.js";
import { replyRoutes } from "./http/reply-routes.js";
import { routesFrom } from "./http/routes-from.js";
import { sessionRoutes } from "./http/session-routes.js";
import { RequestError } from "./request-error.js";
import type { ServiceLog } from "./runtime/service-log.js";
import type { ServiceRuntime } from "./runtime/service-runtime.js";

export interface CreateAppOptions {
  /** Bearer token → user; empty = no auth (every request is the `local` user). */
  tokens?: ReadonlyMap<string, string>;
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Sub-apps mounted at `/` after the /v1 routes (their /v1/* paths get the same auth). */
  mounts?: Array<Hono<{ Variables: ServiceVariables }> | Hono>;
  version?: string;
  /**
   * Host names the server answers to besides localhost, 127.0.0.1 and [::1] (its bound address
   * goes here); other `Host` headers get 403, which stops DNS rebinding. `"*"`: any host.
   */
  allowedHosts?: readonly string[] | "*";
  /** Origins (`https://app.example`) whose pages may call the API (CORS); other origins may not change anything. */
  corsOrigins?: readonly string[];
  /**
   * Where the app reports what an operator should fix: an origin refused by the CORS check (once per
   * origin, with the config line that allows it). Default: nowhere.
   */
  log?: ServiceLog;
  /**
   * Told of every request answered 5xx, with the error behind it: the details the answer leaves out
   * (a store outage's driver error, say) go to the server's log from here. Library code logs nothing
   * by itself; `agentscope serve` writes these to stderr.
   */
  onServerError?: ServerErrorListener;
}

/** See `CreateAppOptions.onServerError`. */
export type ServerErrorListener = (
  error: unknown,
  request: { method: string; path: string; status: number },
) => void;

/** Calls the listener; a listener that throws does not change the answer. */
function tell(
  listener: ServerErrorListener | undefined,
  error: unknown,
  method: string,
  path: string,
  status: number,
): void {
  try {
    listener?.(error, { method, path, status });
  } catch {
    // the answer goes out all the same
  }
}

/**
 * The service's Hono app: JSON routes under /v1 (OpenAPI at /v1/openapi.json), SSE for events,
 * bearer auth, a body limit, and `{ error: { type, message } }` for every failure.
 * `c.var.user` is the authenticated user in every /v1 route, mounted ones included.
 */
export function createApp(
  runtime: ServiceRuntime,
  options: CreateAppOptions = {},
): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();
  const version = options.version ?? "0.1.0";
  const maxSize = options.maxBodyBytes ?? 1024 * 1024;

  app.onError((error, c) => {
    const { response, http } = errorResponse(c, error);
    if (http.status >= 500) tell(options.onServerError, error, c.req.method, c.req.path, http.status);
    return response;
  });
  app.notFound(
    (c) => errorResponse(c, new RequestError("not_found", `no route ${c.req.method} ${c.req.path}`)).response,
  );

  const hosts = options.allowedHosts;
  app.use("*", hostGuard(hosts === "*" ? "*" : [...LOOPBACK_HOSTS, ...(hosts ?? [])]));
  const log = options.log;
  app.use(
    "*",
    originGuard(options.corsOrigins ?? [], (origin, request) =>
      log?.({
        level: "warn",
        message: `refused ${request} from the origin ${origin} (CORS): if that page should use this API, add it to cors.origins in the config, e.g. cors: { origins: ["${origin}"] }`,
      }),
    ),
  );
  // The open routes (auth: "none" in the table) register before the auth middleware.
  app.route(
    "/",
    routesFrom({
      health: (c) => c.json({ status: "ok", backend: runtime.backend.kind, agents: runtime.agentNames }),
      openApi: (c) => c.json(openApiDocument(version)),
    }),
  );

  app.use("/v1/*", bearerAuth(options.tokens ?? new Map()));
  app.use(
    "/v1/*",
    limitBodies(
      maxSize,
      (c) =>
        errorResponse(
          c,
          new RequestError("payload_too_large", `the body is over the limit of ${maxSize} bytes`),
        ).response,
    ),
  );
  app.route(
    "/",
    routesFrom({
      listAgents: (c) =>
        c.json({
          agents: runtime.agentNames.map((name) => {
            const { subagents, members } = delegatesOf(runtime.agent(name)!.toolkit);
            return {
              name,
              ...(subagents.length ? { subagents } : {}),
              ...(members.length ? { members } : {}),
            };
          }),
        }),
    }),
  );
  app.route("/", sessionRoutes(runtime));
  app.route("/", auditRoutes(runtime));
  app.route("/", replyRoutes(runtime));
  for (const mount of options.mounts ?? []) app.route("/", mount as Hono<{ Variables: ServiceVariables }>);
  // On Node, SSE bodies go straight to the socket (see direct-body.ts); elsewhere fetch is unchanged.
  app.fetch = sendBodiesDirectly(app.fetch);
  return app;
}
