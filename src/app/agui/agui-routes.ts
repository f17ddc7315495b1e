import type { Hono } from "hono";
import type { Msg } from "../../message/index.js";
import type { ServiceVariables } from "../server/http/auth.js";
import { errorResponse } from "../server/http/error-response.js";
import { incomingOf } from "../server/http/node-request.js";
import { watchPeer } from "../server/http/peer-watch.js";
import { readBody } from "../server/http/read-body.js";
import { routesFrom } from "../server/http/routes-from.js";
import { dropConnection } from "../server/http/stall-watch.js";
import { StreamPacer } from "../server/http/stream-pacer.js";
import { toHttpError } from "../server/http-error.js";
import type { RunHandle } from "../server/runtime/run-execution.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import type { StreamSlot } from "../server/runtime/stream-slots.js";
import { sessionAsks } from "../server/spawn/subagent-asks.js";
import {
  AguiInputError,
  newUserMessages,
  type ResumeAnswer,
  type RunAgentInput,
  RunAgentInputSchema,
  resumeInputs,
} from "./input.js";
import { type AguiEvent, aguiFrame } from "./protocol.js";
import { addInterrupts, finishAguiRun, startAguiRun, translateEvent } from "./translate.js";

const encoder = new TextEncoder();

/** What starts the run: a RUN_ERROR to send instead, new messages, or the answers of a resume. */
type Plan = { error: { message: string; code: string } } | { input: Msg[] } | { answers: ResumeAnswer[] };

/**
 * `POST /v1/agui`: the AG-UI 1.0 endpoint. The threadId is the session id (created on first use,
 * owned by the caller); `forwardedProps.agent` picks the agent of a new thread. New user messages
 * (by id) start a reply; `resume` answers the interrupts of a paused one. The reply runs in the
 * service (it survives the client going away); this stream follows its events as AG-UI events.
 * Malformed bodies and another user's thread are 4xx JSON errors; protocol mistakes are RUN_ERROR.
 */
export function aguiRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    agui: async (c) => {
      const user = c.get("user");
      let body: RunAgentInput;
      let plan: Plan;
      let slot: StreamSlot;
      try {
        body = await readBody(c, RunAgentInputSchema, "AG-UI RunAgentInput");
        const agent = agentOf(body.forwardedProps);
        await runtime.ensureSession(user, body.threadId, agent ? { agent } : {});
        plan = await planRun(runtime, user, body);
        slot = runtime.streams.take(user); // the stream limit: 429 before anything runs
      } catch (error) {
        return errorResponse(c, error).response;
      }
      // A client that takes nothing for the write timeout is dropped (its socket, on Node).
      const socket = incomingOf(c)?.socket;
      const drop = () => dropConnection(socket);
      socket?.once("close", watchPeer(slot, socket, drop));
      return aguiStream(runtime, user, body, plan, c.req.raw.signal, { slot, drop });
    },
  });
}

function agentOf(forwardedProps: unknown): string | undefined {
  if (typeof forwardedProps !== "object" || forwardedProps === null) return undefined;
  const agent = (forwardedProps as { agent?: unknown }).agent;
  return typeof agent === "string" && agent !== "" ? agent : undefined;
}

async function planRun(runtime: ServiceRuntime, user: string, body: RunAgentInput): Promise<Plan> {
  const status = await runtime.status(user, body.threadId);
  try {
    if (body.resume !== undefined && body.resume.length > 0) {
      const asks = await sessionAsks(runtime.backend, body.threadId);
      if (asks.length === 0)
        throw new AguiInputError("resume answers no open interrupt: this thread is not waiting");
      // a spawned sub-agent's session is answered first: its outcome is what the thread waits on
      const answers = resumeInputs(body.threadId, asks, body.resume);
      return {
        answers: answers.sort(
          (a, b) => Number(a.sessionId === body.threadId) - Number(b.sessionId === body.threadId),
        ),
      };
    }
    if (status.waitingFor) {
      const open = status.pendingToolCalls.map((call) => call.id).join(", ");
      throw new AguiInputError(
        `this thread has open interrupts (tool calls ${open}); send resume to answer them`,
      );
    }
    const known = new Set((await runtime.messages(user, body.threadId)).map((msg) => msg.id));
    const input = newUserMessages(body.messages, known);
    if (input.length === 0)
      throw new AguiInputError("the run carries no new user message (messages are matched by id)");
    return { input };
  } catch (error) {
    if (error instanceof AguiInputError)
      return { error: { message: error.message, code: "invalid_request" } };
    throw error;
  }
}

function aguiStream(
  runtime: ServiceRuntime,
  user: string,
  body: RunAgentInput,
  plan: Plan,
  requestSignal: AbortSignal,
  limits: { slot: StreamSlot; drop: () => void },
): Response {
  const controller = new AbortController();
  const pacer = new StreamPacer(limits.slot, () => {
    controller.abort();
    limits.drop();
  });
  requestSignal.addEventListener("abort", () => controller.abort(), { once: true });
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const write = (text: string) => {
    if (controller.signal.aborted) return;
    try {
      out.enqueue(encoder.encode(text));
    } catch {
      controller.abort(); // the client has gone; the run goes on in the service
    }
  };
  const send = (events: AguiEvent[]) => {
    for (const event of events) write(aguiFrame(event));
  };

  const pump = async () => {
    const { translation, events } = startAguiRun({
      threadId: body.threadId,
      runId: body.runId,
      state: body.state,
    });
    send(events);
    try {
      if ("error" in plan) {
        send(finishAguiRun(translation, plan.error));
        return;
      }
      // Follows one run: the thread's own are translated; a sub-agent session's only keep the stream alive.
      const relay = async (handle: RunHandle) => {
        const own = handle.sessionId === body.threadId;
        const items = await runtime.follow(user, handle.sessionId, {
          after: handle.after,
          signal: controller.signal,
          until: handle.done,
        });
        for await (const item of items) {
          if (item.kind === "event" && own) send(translateEvent(translation, item.event));
          else if (item.kind === "heartbeat") write(": keep-alive\n\n");
          await pacer.ready(out); // the follower waits while the client's queue is full
        }
      };
      if ("input" in plan) await relay(await runtime.startReply(user, body.threadId, plan.input));
      else {
        // one answer per session and reply asked from, each run to its end (or pause) before the next
        for (const answer of plan.answers)
          await relay(await runtime.answer(user, answer.sessionId, answer.input, { via: "agui" }));
        translation.elsewhere = plan.answers.every((answer) => answer.sessionId !== body.threadId);
      }
      // What waits now, from the store: the thread's asks, its sub-runs' and its spawned sub-agents'.
      translation.interrupts = [];
      addInterrupts(translation, await sessionAsks(runtime.backend, body.threadId));
      send(finishAguiRun(translation));
    } catch (error) {
      const http = toHttpError(error);
      send(finishAguiRun(translation, { message: http.message, code: http.type }));
    } finally {
      limits.slot.release();
      try {
        out.close();
      } catch {
        // the client has gone
      }
    }
  };

  // `start` must return at once (a stream is not read before it resolves): the run is pumped apart.
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controllerOfStream) {
        out = controllerOfStream;
        void pump();
      },
      pull() {
        pacer.pulled();
      },
      cancel() {
        limits.slot.release();
        controller.abort();
        pacer.pulled();
      },
    },
    pacer.strategy(),
  );
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
