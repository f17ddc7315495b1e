import type { Hono } from "hono";
import { userMsg } from "../../../message/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { SessionTimeTravel } from "../runtime/session-time-travel.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";
import { runResponse } from "./run-response.js";

/**
 * A session's checkpoints, rewind, fork and edit-and-resend (docs/time-travel.md). On a server
 * started without checkpoints each answers `invalid_state` saying so.
 */
export function timeTravelRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  const timeTravel = (): SessionTimeTravel => {
    if (!runtime.timeTravel)
      throw new RequestError(
        "invalid_state",
        "this server keeps no checkpoints (it runs without `checkpoints`)",
      );
    return runtime.timeTravel;
  };
  return routesFrom({
    listCheckpoints: async (c, request) => {
      const record = await runtime.getSession(c.var.user, request.param("id"));
      return c.json(await timeTravel().list(record));
    },

    rewindSession: async (c, request) => {
      const body = await request.body();
      const record = await runtime.getSession(c.var.user, request.param("id"));
      const options = body.memory ? { memory: body.memory } : {};
      return c.json(await timeTravel().rewind(record, body.checkpoint, options));
    },

    forkSession: async (c, request) => {
      const body = await request.body();
      const record = await runtime.getSession(c.var.user, request.param("id"));
      return c.json(await timeTravel().fork(runtime, record, body), 201);
    },

    editMessage: async (c, request) => {
      const body = await request.body();
      const user = c.var.user;
      const sessionId = request.param("id");
      const record = await runtime.getSession(user, sessionId);
      const travel = timeTravel();
      const before = await travel.before(
        record,
        await runtime.messages(user, sessionId),
        request.param("messageId"),
      );
      await travel.rewind(record, before);
      return runResponse(c, runtime, user, () => runtime.startReply(user, sessionId, [userMsg(body.text)]));
    },
  });
}
