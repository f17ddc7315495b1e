import type { Context } from "hono";
import type { RunHandle } from "../runtime/run-execution.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { requestHeader } from "./request-header.js";
import { sseResponse } from "./sse.js";

/**
 * Answers a request that started (or resumed) a run: with `Accept: text/event-stream`, the run's
 * events as SSE until it ends or pauses; otherwise 202 with where to follow it. Either way the run
 * goes on server-side if the client leaves.
 */
export function runResponse(c: Context, runtime: ServiceRuntime, user: string, run: RunHandle): Response {
  if ((requestHeader(c, "accept") ?? "").includes("text/event-stream")) {
    return sseResponse(
      (signal) => runtime.openFollower(user, run.sessionId, { after: run.after, signal, until: run.done }),
      c.req.raw,
    );
  }
  return c.json(
    {
      sessionId: run.sessionId,
      replyId: run.replyId,
      after: run.after,
      events: `/v1/sessions/${encodeURIComponent(run.sessionId)}/events?after=${run.after}`,
    },
    202,
  );
}
