import type { Context, Hono } from "hono";
import {
  AGENTSCOPE_EVENTS_HEADER,
  UI_MESSAGE_STREAM_HEADER,
  UI_MESSAGE_STREAM_VERSION,
} from "../../../protocol/index.js";
import type { SessionRecord } from "../../../state/service/index.js";
import type { ServiceVariables } from "../../server/http/auth.js";
import { readBody } from "../../server/http/read-body.js";
import { requestHeader } from "../../server/http/request-header.js";
import { routesFrom } from "../../server/http/routes-from.js";
import { HttpError, toHttpError } from "../../server/http-error.js";
import { RequestError } from "../../server/request-error.js";
import type { ServiceRuntime } from "../../server/runtime/service-runtime.js";
import { type FollowPoint, followStream, takeStreamSlot } from "../follow-stream.js";
import { replyReplayPoint } from "./reply-replay.js";
import { chatTurn, UiChatRequestSchema } from "./ui-chat-request.js";
import { uiMessageFrames } from "./ui-message-frames.js";
import { startUi } from "./ui-message-translation.js";

/** Response header naming the session a chat runs in (the chat id). */
export const UI_SESSION_HEADER = "x-agentscope-session-id";

/**
 * The AI SDK bridge: `POST /v1/ai-sdk/<agent>/chat` answers `useChat`'s default transport with a UI
 * message stream of one reply; `GET .../chat/<id>/stream` (`resume: true`) replays the running
 * reply from its start and follows it (a paused one up to its pause; 204 when there is neither); `POST .../chat/<id>/stop` interrupts it server-side. The chat
 * id is a session of the caller's (created on the first message) under the service's auth and
 * isolation: another user's chat id is "not found".
 */
export function uiChatRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    aiSdkChat: async (c, request) => {
      const user = c.get("user");
      try {
        const agent = agentOf(runtime, request.param("agent"));
        const body = await readBody(c, UiChatRequestSchema, "chat request");
        const turn = chatTurn(body);
        const record = await runtime.ensureSession(user, body.id, { agent, title: "AI SDK chat" });
        checkAgent(record, agent);
        const stream = takeStreamSlot(c, runtime, user);
        let handle: Awaited<ReturnType<ServiceRuntime["startReply"]>>;
        try {
          handle =
            turn.kind === "message"
              ? await runtime.startReply(user, body.id, turn.input)
              : await runtime.confirm(user, body.id, turn.answers, turn.replyId);
        } catch (error) {
          stream.slot.release();
          throw error;
        }
        return uiStream(c, runtime, user, handle, handle.replyId, stream);
      } catch (error) {
        return errorResponse(c, toHttpError(error));
      }
    },
    aiSdkChatStream: async (c, request) => {
      const user = c.get("user");
      try {
        const agent = agentOf(runtime, request.param("agent"));
        const sessionId = request.param("id");
        const record = await runtime.getSession(user, sessionId);
        checkAgent(record, agent);
        const status = await runtime.status(user, sessionId, record);
        const paused = !status.running && status.waitingFor !== undefined;
        if (status.replyId === undefined || !(status.running || paused)) return c.body(null, 204);
        const after = await replyReplayPoint(
          runtime.backend.events,
          sessionId,
          status.replyId,
          status.lastEventId,
        );
        const stream = takeStreamSlot(c, runtime, user);
        // A paused reply is replayed up to its pause (the page can answer it again); a running one is followed.
        const point = paused ? { sessionId, after, done: Promise.resolve() } : { sessionId, after };
        return uiStream(c, runtime, user, point, status.replyId, stream);
      } catch (error) {
        return errorResponse(c, toHttpError(error));
      }
    },
    aiSdkChatStop: async (c, request) => {
      const user = c.get("user");
      try {
        const agent = agentOf(runtime, request.param("agent"));
        const sessionId = request.param("id");
        // No body, or a JSON one (`{ reason }`): a body of another type is a 415, as on every route.
        const { reason } = await request.body();
        checkAgent(await runtime.getSession(user, sessionId), agent);
        try {
          const { was, run } = await runtime.interrupt(user, sessionId, reason ?? "stopped from the chat");
          return c.json({ was, ...(run ? { replyId: run.replyId, after: run.after } : {}) }, 202);
        } catch (error) {
          // The reply ended before the stop came: nothing to stop, and nothing wrong.
          if (RequestError.isInstance(error) && error.info.type === "invalid_state")
            return c.json({ was: "idle" }, 200);
          throw error;
        }
      } catch (error) {
        return errorResponse(c, toHttpError(error));
      }
    },
  });
}

function uiStream(
  c: Context<{ Variables: ServiceVariables }>,
  runtime: ServiceRuntime,
  user: string,
  point: FollowPoint,
  replyId: string,
  stream: ReturnType<typeof takeStreamSlot>,
): Response {
  const withEvents = requestHeader(c, AGENTSCOPE_EVENTS_HEADER) === "1";
  return followStream({
    runtime,
    user,
    handle: point,
    stream,
    signal: c.req.raw.signal,
    frames: uiMessageFrames(startUi(point.sessionId, replyId, withEvents)),
    headers: { [UI_MESSAGE_STREAM_HEADER]: UI_MESSAGE_STREAM_VERSION, [UI_SESSION_HEADER]: point.sessionId },
  });
}

function agentOf(runtime: ServiceRuntime, name: string): string {
  if (runtime.agent(name)) return name;
  throw new HttpError(
    404,
    "not_found",
    `agent "${name}" does not exist (have: ${runtime.agentNames.join(", ")})`,
  );
}

function checkAgent(record: SessionRecord, agent: string): void {
  if (record.agent !== agent)
    throw new HttpError(
      400,
      "invalid_request",
      `id: chat "${record.sessionId}" talks to agent "${record.agent}", not "${agent}"`,
    );
}

function errorResponse(c: Context, error: HttpError): Response {
  if (error.retryAfterSeconds !== undefined) c.header("retry-after", String(error.retryAfterSeconds));
  return c.json(error.body, error.status);
}
