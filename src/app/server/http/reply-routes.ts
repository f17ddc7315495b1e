import type { Context, Hono } from "hono";
import { type Msg, userMsg } from "../../../message/index.js";
import { RequestError } from "../request-error.js";
import type { AnswerHow, ServiceRuntime } from "../runtime/service-runtime.js";
import { answerChannel } from "./answer-channel.js";
import type { ServiceVariables } from "./auth.js";
import { idempotencyKeyOf } from "./idempotency-key.js";
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

/** An answer's channel (`AgentScope-Channel`) and `Idempotency-Key`. */
function answerHow(c: Context): AnswerHow {
  const key = idempotencyKeyOf(c);
  return { via: answerChannel(c), ...(key === undefined ? {} : { idempotencyKey: key }) };
}

/** Starting a reply and answering it: replies, confirm, external results, interrupt. */
export function replyRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    startReply: async (c, request) => {
      const input = inputMessages(await request.body());
      const user = c.var.user;
      const key = idempotencyKeyOf(c);
      const how = key === undefined ? {} : { idempotencyKey: key };
      return runResponse(c, runtime, user, () => runtime.startReply(user, request.param("id"), input, how));
    },

    confirm: async (c, request) => {
      const body = await request.body();
      const user = c.var.user;
      const sessionId = request.param("id");
      // a named approver may answer in a session they do not own: the asks their policy governs only
      const how = { ...answerHow(c), asApprover: true };
      // The schema has validated either form: no second parse into an event.
      return runResponse(c, runtime, user, () =>
        body.answers
          ? runtime.confirm(user, sessionId, body.answers, body.replyId, how)
          : runtime.confirmResults(user, sessionId, body.confirmResults!, body.replyId, how),
      );
    },

    externalResults: async (c, request) => {
      const body = await request.body();
      const user = c.var.user;
      const how = answerHow(c);
      return runResponse(c, runtime, user, () =>
        runtime.submitResults(user, request.param("id"), body.toolResults, body.replyId, how),
      );
    },

    approvals: async (c) => c.json({ approvals: await runtime.approvals(c.var.user) }),

    interrupt: async (c, request) => {
      const body = await request.body();
      const key = idempotencyKeyOf(c);
      const how = key === undefined ? {} : { idempotencyKey: key };
      const result = await runtime.interrupt(c.var.user, request.param("id"), body.reason, how);
      return c.json(
        { was: result.was, ...(result.run ? { replyId: result.run.replyId, after: result.run.after } : {}) },
        202,
      );
    },
  });
}
