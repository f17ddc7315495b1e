import type { Hono } from "hono";
import { RequestError, sessionNotFound } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { sessionDecisions } from "../runtime/session-decisions.js";
import { pageWithParents, sessionWithParent } from "../spawn/session-parent.js";
import type { ServiceVariables } from "./auth.js";
import { requestHeader } from "./request-header.js";
import { routesFrom } from "./routes-from.js";
import { resumePoint, sseResponse } from "./sse.js";

/** Sessions: create, list, read, rename, delete; their messages, decisions, status and event stream. */
export function sessionRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    createSession: async (c, request) => {
      const body = await request.body();
      const options: Parameters<ServiceRuntime["createSession"]>[1] = {};
      if (body.sessionId !== undefined) options.sessionId = body.sessionId;
      if (body.agent !== undefined) options.agent = body.agent;
      if (body.title !== undefined) options.title = body.title;
      return c.json(await runtime.createSession(c.var.user, options), 201);
    },

    listSessions: async (c) => {
      const limitText = c.req.query("limit");
      const limit = limitText === undefined ? undefined : Number(limitText);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500))
        throw new RequestError("invalid_request", "limit: an integer from 1 to 500");
      const options: { limit?: number; cursor?: string } = {};
      if (limit !== undefined) options.limit = limit;
      const cursor = c.req.query("cursor");
      if (cursor) options.cursor = cursor;
      return c.json(await pageWithParents(runtime.backend, await runtime.listSessions(c.var.user, options)));
    },

    getSession: async (c, request) => {
      const record = await runtime.getSession(c.var.user, request.param("id"));
      const status = await runtime.status(c.var.user, record.sessionId, record);
      return c.json({ ...(await sessionWithParent(runtime.backend, record)), status });
    },

    renameSession: async (c, request) => {
      const user = c.var.user;
      const sessionId = request.param("id");
      await runtime.getSession(user, sessionId);
      const { title } = await request.body();
      if (!(await runtime.backend.sessions.setTitle(sessionId, title))) throw sessionNotFound(sessionId);
      return c.json(await runtime.getSession(user, sessionId));
    },

    deleteSession: async (c, request) => {
      await runtime.deleteSession(c.var.user, request.param("id"));
      return c.body(null, 204);
    },

    messages: async (c, request) =>
      c.json({ messages: await runtime.messages(c.var.user, request.param("id")) }),

    decisions: async (c, request) => {
      const sessionId = request.param("id");
      await runtime.getSession(c.var.user, sessionId);
      return c.json({ decisions: await sessionDecisions(runtime.backend, sessionId) });
    },

    status: async (c, request) => c.json(await runtime.status(c.var.user, request.param("id"))),

    events: async (c, request) => {
      const user = c.var.user;
      const sessionId = request.param("id");
      await runtime.getSession(user, sessionId);
      const after = resumePoint(requestHeader(c, "last-event-id"), c.req.query("after"), 0);
      if (after === undefined)
        throw new RequestError("invalid_request", "Last-Event-ID / after: a decimal event id like 42");
      const newest = await runtime.backend.events.lastSeq(sessionId);
      if (after > newest)
        throw new RequestError(
          "invalid_request",
          `Last-Event-ID / after: ${after} is ahead of the session's log (its newest event is ${newest})`,
        );
      const slot = runtime.streams.take(user);
      return sseResponse(
        (signal) => runtime.openFollower(user, sessionId, { after, signal }),
        c.req.raw,
        slot,
      );
    },
  });
}
