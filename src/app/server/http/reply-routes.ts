import { Hono } from "hono";
import { parseInputEvent } from "../../../event/index.js";
import { type Msg, parseMsg, userMsg } from "../../../message/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import type { ServiceVariables } from "./auth.js";
import { readBody } from "./read-body.js";
import { ConfirmBody, ExternalResultsBody, InterruptBody, ReplyBody } from "./request-schemas.js";
import { runResponse } from "./run-response.js";

function inputMessages(body: { text?: string | undefined; input?: unknown }): Msg[] | undefined {
  if (body.text !== undefined) return [userMsg(body.text)];
  if (body.input === undefined) return undefined;
  const list = (Array.isArray(body.input) ? body.input : [body.input]).map((value) => parseMsg(value));
  const index = list.findIndex((msg) => msg.role !== "user");
  if (index >= 0)
    throw new RequestError("invalid_request", `input[${index}].role: a client may only send user messages`);
  return list;
}

/** Starting a reply and answering it: replies, confirm, external results, interrupt (mounted under a session). */
export function replyRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  const app = new Hono<{ Variables: ServiceVariables }>();

  app.post("/:id/replies", async (c) => {
    const body = await readBody(c, ReplyBody, "reply request");
    const input = inputMessages(body);
    const user = c.var.user;
    return runResponse(c, runtime, user, () => runtime.startReply(user, c.req.param("id"), input));
  });

  app.post("/:id/confirm", async (c) => {
    const body = await readBody(c, ConfirmBody, "confirmation");
    const user = c.var.user;
    const sessionId = c.req.param("id");
    return runResponse(c, runtime, user, async () =>
      body.answers
        ? runtime.confirm(user, sessionId, body.answers, body.replyId)
        : runtime.answer(
            user,
            sessionId,
            parseInputEvent({
              type: "USER_CONFIRM_RESULT",
              replyId: body.replyId ?? (await runtime.replyIdOf(user, sessionId)),
              confirmResults: body.confirmResults,
            }),
          ),
    );
  });

  app.post("/:id/external-results", async (c) => {
    const body = await readBody(c, ExternalResultsBody, "external results");
    const user = c.var.user;
    return runResponse(c, runtime, user, () =>
      runtime.submitResults(user, c.req.param("id"), body.toolResults, body.replyId),
    );
  });

  app.post("/:id/interrupt", async (c) => {
    const body = await readBody(c, InterruptBody, "interrupt");
    const result = await runtime.interrupt(c.var.user, c.req.param("id"), body.reason);
    return c.json(
      { was: result.was, ...(result.run ? { replyId: result.run.replyId, after: result.run.after } : {}) },
      202,
    );
  });

  return app;
}
