import { A2A_VERSION_HEADER } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  type User,
} from "@a2a-js/sdk/server";
import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ServiceVariables } from "../server/http/auth.js";
import { errorResponse } from "../server/http/error-response.js";
import { requireJsonContentType } from "../server/http/read-body.js";
import { routesFrom, type ServiceContext } from "../server/http/routes-from.js";
import { RequestError } from "../server/request-error.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import { agentCardOf } from "./agent-card.js";
import { ServiceAgentExecutor } from "./service-executor.js";

interface Endpoint {
  handler: DefaultRequestHandler;
  v1: JsonRpcTransportHandler;
  v03: LegacyJsonRpcTransportHandler;
}

class ServiceUser implements User {
  constructor(readonly userName: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

/**
 * The A2A endpoint: every agent of the service at `/v1/a2a/<agent>` (JSON-RPC: v1.0
 * `SendMessage` / `SendStreamingMessage` with `A2A-Version: 1.0`, v0.3 `message/send` /
 * `message/stream` without it), its card at `/v1/a2a/<agent>/.well-known/agent-card.json`. Under the
 * service's bearer auth like every /v1 route; a task's context is a session of the calling user.
 */
export function a2aRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  const endpoints = new Map<string, Endpoint>();
  const endpointOf = (agent: string, url: string): Endpoint | undefined => {
    const known = endpoints.get(agent);
    if (known) return known;
    const served = runtime.agent(agent);
    if (!served) return undefined;
    const handler = new DefaultRequestHandler(
      agentCardOf(served, url),
      new InMemoryTaskStore(),
      new ServiceAgentExecutor(runtime, agent),
    );
    const endpoint = {
      handler,
      v1: new JsonRpcTransportHandler(handler),
      v03: new LegacyJsonRpcTransportHandler(handler),
    };
    endpoints.set(agent, endpoint);
    return endpoint;
  };
  const urlOf = (requestUrl: string, agent: string) =>
    `${new URL(requestUrl).origin}/v1/a2a/${encodeURIComponent(agent)}`;
  const unknown = (c: ServiceContext, agent: string) =>
    errorResponse(
      c,
      new RequestError("not_found", `no agent named "${agent}" (agents: ${runtime.agentNames.join(", ")})`),
    ).response;

  return routesFrom({
    a2aAgentCard: async (c, request) => {
      const agent = request.param("agent");
      const endpoint = endpointOf(agent, urlOf(c.req.url, agent));
      if (!endpoint) return unknown(c, agent);
      return c.json(await endpoint.handler.getAgentCard());
    },

    a2a: async (c, request) => {
      const agent = request.param("agent");
      const endpoint = endpointOf(agent, urlOf(c.req.url, agent));
      if (!endpoint) return unknown(c, agent);
      requireJsonContentType(c, "A2A JSON-RPC request");
      let body: Record<string, unknown>;
      try {
        body = (await c.req.json()) as Record<string, unknown>;
      } catch {
        return c.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "the body is not JSON" } });
      }
      const requestedVersion = c.req.header(A2A_VERSION_HEADER);
      const legacy = requestedVersion === undefined || requestedVersion === "0.3";
      const context = defaultServerCallContextBuilder({
        extensions: undefined,
        user: new ServiceUser(c.get("user")),
        headers: c.req.header(),
        ...(requestedVersion ? { requestedVersion } : {}),
      });
      const transport = legacy ? endpoint.v03 : endpoint.v1;
      const result = await transport.handle(body, context);
      if (!isAsyncIterable(result)) return c.json(result);
      return streamSSE(c, async (stream) => {
        for await (const response of result) await stream.writeSSE({ data: JSON.stringify(response) });
      });
    },
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown>)?.[Symbol.asyncIterator] === "function";
}
