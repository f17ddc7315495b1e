import { Hono } from "hono";
import { RequestError, sessionNotFound } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { ServiceVariables } from "./auth.js";
import { readBody } from "./read-body.js";
import { requestHeader } from "./request-header.js";
import { CreateSessionBody, RenameSessionBody } from "./request-schemas.js";
import { resumePoint, sseResponse } from "./sse.js";

/** Sessions: create, list, read, delete; their messages, status and event stream. */
export function sessionRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();

  app.post("/", async (c) => {
    const body = await readBody(c, CreateSessionBody, "session");
    const options: Parameters<ServiceRuntime["createSession"]>[1] = {};
    if (body.sessionId !== undefined) options.sessionId = body.sessionId;
    if (body.agent !== undefined) options.agent = body.agent;
    if (body.title !== undefined) options.title = body.title;
    return c.json(await runtime.createSession(c.var.user, options), 201);
  });

  app.get("/", async (c) => {
    const limitText = c.req.query("limit");
    const limit = limitText === undefined ? undefined : Number(limitText);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500))
      throw new RequestError("invalid_request", "limit: an integer from 1 to 500");
    const options: { limit?: number; cursor?: string } = {};
    if (limit !== undefined) options.limit = limit;
    const cursor = c.req.query("cursor");
    if (cursor) options.cursor = cursor;
    return c.json(await runtime.listSessions(c.var.user, options));
  });

  app.get("/:id", async (c) => {
    const record = await runtime.getSession(c.var.user, c.req.param("id"));
    return c.json({ ...record, status: await runtime.status(c.var.user, record.sessionId) });
  });

  app.patch("/:id", async (c) => {
    const user = c.var.user;
    const sessionId = c.req.param("id");
    await runtime.getSession(user, sessionId);
    const { title } = await readBody(c, RenameSessionBody, "session rename");
    if (!(await runtime.backend.sessions.setTitle(sessionId, title))) throw sessionNotFound(sessionId);
    return c.json(await runtime.getSession(user, sessionId));
  });

  app.delete("/:id", async (c) => {
    await runtime.deleteSession(c.var.user, c.req.param("id"));
    return c.body(null, 204);
  });

  app.get("/:id/messages", async (c) =>
    c.json({ messages: await runtime.messages(c.var.user, c.req.param("id")) }),
  );

  app.get("/:id/status", async (c) => c.json(await runtime.status(c.var.user, c.req.param("id"))));

  app.get("/:id/events", async (c) => {
    const user = c.var.user;
    const sessionId = c.req.param("id");
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
    return sseResponse((signal) => runtime.openFollower(user, sessionId, { after, signal }), c.req.raw, slot);
  });

  return app;
}
