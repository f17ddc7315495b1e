import type { Context } from "hono";
import type { RunHandle } from "../runtime/run-execution.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { requestHeader } from "./request-header.js";
import { sseResponse } from "./sse.js";

/**
 * Starts (or resumes) a run with `start` and answers the request: with `Accept: text/event-stream`,
 * the run's events as SSE until it ends or pauses; otherwise 202 with where to follow it. Either way
 * the run goes on server-side if the client leaves. A named approver's answer in a session they do
 * not own (`run.asApprover`) gets 202 `{ sessionId, replyId, approver: true }` either way, nothing
 * more. A stream's slot is taken before the run starts: a user at the stream limit gets 429 and
 * nothing runs.
 */
export async function runResponse(
  c: Context,
  runtime: ServiceRuntime,
  user: string,
  start: () => Promise<RunHandle>,
): Promise<Response> {
  const wantsStream = (requestHeader(c, "accept") ?? "").includes("text/event-stream");
  const slot = wantsStream ? runtime.streams.take(user) : undefined;
  let run: RunHandle;
  try {
    run = await start();
  } catch (error) {
    slot?.release();
    throw error;
  }
  if (run.asApprover) {
    // a named approver in another user's session: their answer was taken, nothing of its log is shown
    slot?.release();
    return c.json({ sessionId: run.sessionId, replyId: run.replyId, approver: true }, 202);
  }
  if (slot) {
    return sseResponse(
      (signal) => runtime.openFollower(user, run.sessionId, { after: run.after, signal, until: run.done }),
      c.req.raw,
      slot,
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
