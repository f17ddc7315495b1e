import type { Context, Hono } from "hono";
import { newId } from "../../../message/index.js";
import type { ServiceVariables } from "../../server/http/auth.js";
import { readBody } from "../../server/http/read-body.js";
import { requestHeader } from "../../server/http/request-header.js";
import { routesFrom } from "../../server/http/routes-from.js";
import { HttpError, toHttpError } from "../../server/http-error.js";
import type { ServiceRuntime } from "../../server/runtime/service-runtime.js";
import { collectRun, followStream, takeStreamSlot } from "../follow-stream.js";
import {
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  chatInput,
  checkChatRequest,
} from "./chat-request.js";
import { finishChat, startChat, translateChatEvent } from "./chat-translation.js";
import { chatCompletion, chatFrames } from "./completion-body.js";

/** The header that names (in requests) and reports (in responses) the session a completion runs in. */
export const SESSION_HEADER = "x-agentscope-session-id";
/** Response header of a paused reply: the ids of the tool calls waiting for an answer, comma-separated. */
export const PENDING_HEADER = "x-agentscope-pending-tool-calls";

/**
 * The OpenAI-compatible endpoint: `GET /v1/openai/models` lists the agents as models and
 * `POST /v1/openai/chat/completions` runs a reply of the agent named by `model`, streamed
 * (`stream: true`, SSE chunks ending in `[DONE]`) or not. Each completion is a reply in a session of
 * the caller's (a new one unless `session_id` or the `x-agentscope-session-id` header continues
 * one), under the service's auth and isolation. The agent's tools run server-side; a reply that
 * pauses for an approval ends its message with what waits, and the `agentscope` extension field
 * lists the ids to answer through `/v1/sessions/<id>/confirm`.
 */
export function openaiRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    openaiModels: (c) => c.json({ object: "list", data: runtime.agentNames.map((name) => modelEntry(name)) }),
    openaiModel: (c, request) => {
      const name = request.param("model");
      if (!runtime.agent(name)) return errorResponse(c, unknownModel(runtime, name));
      return c.json(modelEntry(name));
    },
    openaiChatCompletions: async (c) => {
      const user = c.get("user");
      try {
        const request = await readBody(c, ChatCompletionRequestSchema, "chat completion request");
        checkChatRequest(request);
        if (!runtime.agent(request.model)) throw unknownModel(runtime, request.model);
        const sessionId = await sessionFor(c, runtime, user, request);
        const continued = sessionId !== undefined;
        const input = chatInput(request.messages, continued);
        const session = sessionId ?? (await newSession(runtime, user, request.model)).sessionId;
        const created = Math.floor(Date.now() / 1000);
        const stream = request.stream ? takeStreamSlot(c, runtime, user) : undefined;
        let handle: Awaited<ReturnType<ServiceRuntime["startReply"]>>;
        try {
          handle = await runtime.startReply(user, session, input);
        } catch (error) {
          stream?.slot.release();
          throw error;
        }
        const head = { id: `chatcmpl-${handle.replyId}`, created, model: request.model };
        const translation = startChat(session);
        if (stream) {
          return followStream({
            runtime,
            user,
            handle,
            stream,
            signal: c.req.raw.signal,
            frames: chatFrames(head, translation, request.stream_options?.include_usage === true),
            headers: { [SESSION_HEADER]: session },
          });
        }
        let text = "";
        let reasoning = "";
        await collectRun(runtime, user, handle, c.req.raw.signal, (event) => {
          const delta = translateChatEvent(translation, event);
          if (delta?.content) text += delta.content;
          if (delta?.reasoning_content) reasoning += delta.reasoning_content;
        });
        const finish = finishChat(translation);
        if (finish.error) throw new HttpError(500, "internal", `the reply failed: ${finish.error.message}`);
        c.header(SESSION_HEADER, session);
        if (finish.extension.pending) {
          c.header(PENDING_HEADER, finish.extension.pending.map((call) => call.tool_call_id).join(","));
        }
        return c.json(chatCompletion(head, text, reasoning, translation.usage, finish));
      } catch (error) {
        return errorResponse(c, toHttpError(error));
      }
    },
  });
}

function modelEntry(name: string) {
  return { id: name, object: "model", created: 0, owned_by: "agentscope" };
}

function unknownModel(runtime: ServiceRuntime, name: string): HttpError {
  return new HttpError(
    404,
    "not_found",
    `model "${name}": no agent of that name (have: ${runtime.agentNames.join(", ")})`,
  );
}

/** The session the request continues (its agent must be the model), or undefined for a new one. */
async function sessionFor(
  c: Context,
  runtime: ServiceRuntime,
  user: string,
  request: ChatCompletionRequest,
): Promise<string | undefined> {
  const sessionId = request.session_id ?? requestHeader(c, SESSION_HEADER);
  if (sessionId === undefined) return undefined;
  const record = await runtime.getSession(user, sessionId);
  if (record.agent !== request.model) {
    throw new HttpError(
      400,
      "invalid_request",
      `model: session "${sessionId}" talks to agent "${record.agent}", not "${request.model}"`,
    );
  }
  return sessionId;
}

function newSession(runtime: ServiceRuntime, user: string, agent: string) {
  return runtime.createSession(user, { sessionId: newId("openai"), agent, title: "OpenAI chat completion" });
}

function errorResponse(c: Context, error: HttpError): Response {
  if (error.retryAfterSeconds !== undefined) c.header("retry-after", String(error.retryAfterSeconds));
  return c.json(error.body, error.status);
}
