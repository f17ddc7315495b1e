import type { Hono } from "hono";
import { type Msg, userMsg } from "../../../message/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { answerChannel } from "./answer-channel.js";
import type { ServiceVariables } from "./auth.js";
import type { ParsedBody } from "./routes-from.js";
import { routesFrom } from "./routes-from.js";
import { runResponse } from "./run-response.js";

/** The input of a reply body, which the table's schema has validated (each Msg included): no second parse. */
function inputMessages(body: ParsedBody<"startReply">): Msg[] | undefined {
  if (body.text !== undefined) return [userMsg(body.text)];
  if (body.input === undefined) return undefined;
  const list = (Array.isArray(body.input) ? body.input : [body.input]) as Msg[];
  const index = list.findIndex((msg) => msg.role !== "user");
  if (index >= 0)
    throw new RequestError("invalid_request", `input[${index}].role: a client may only send user messages`);
  return list;
}

/** Starting a reply and answering it: replies, confirm, external results, interrupt. */
export function replyRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    startReply: async (c, request) => {
      const input = inputMessages(await request.body());
      const user = c.var.user;
      return runResponse(c, runtime, user, () => runtime.startReply(user, request.param("id"), input));
    },

    confirm: async (c, request) => {
      const body = await request.body();
      const user = c.var.user;
      const sessionId = request.param("id");
      const via = answerChannel(c);
      // The schema has validated either form: no second parse into an event.
      return runResponse(c, runtime, user, () =>
        body.answers
          ? runtime.confirm(user, sessionId, body.answers, body.replyId, via)
          : runtime.confirmResults(user, sessionId, body.confirmResults!, body.replyId, via),
      );
    },

    externalResults: async (c, request) => {
      const body = await request.body();
      const user = c.var.user;
      const via = answerChannel(c);
      return runResponse(c, runtime, user, () =>
        runtime.submitResults(user, request.param("id"), body.toolResults, body.replyId, via),
      );
    },

    interrupt: async (c, request) => {
      const body = await request.body();
      const result = await runtime.interrupt(c.var.user, request.param("id"), body.reason);
      return c.json(
        { was: result.was, ...(result.run ? { replyId: result.run.replyId, after: result.run.after } : {}) },
        202,
      );
    },
  });
}
