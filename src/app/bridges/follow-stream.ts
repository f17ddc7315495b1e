import type { Context } from "hono";
import type { AgentEvent } from "../../event/index.js";
import { incomingOf } from "../server/http/node-request.js";
import { watchPeer } from "../server/http/peer-watch.js";
import { dropConnection } from "../server/http/stall-watch.js";
import { StreamPacer } from "../server/http/stream-pacer.js";
import { type HttpError, toHttpError } from "../server/http-error.js";
import type { RunHandle } from "../server/runtime/run-execution.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import type { StreamSlot } from "../server/runtime/stream-slots.js";

const encoder = new TextEncoder();

/** What a bridge writes for its protocol: text per event, per keep-alive, and once at the end. */
export interface BridgeFrames {
  /** The wire text one agent event stands for ("" for none). */
  event(event: AgentEvent): string;
  heartbeat(): string;
  /** The closing text: after the reply's last event, or when following it failed (`error`). */
  finish(error?: HttpError): string;
  /** Whether the bridge's message is over before the follower ends (checked after each item). */
  done?(): boolean;
}

/** A stream slot of the caller's (429 when the user has too many open), with the socket's drop. */
export interface BridgeStreamSlot {
  slot: StreamSlot;
  drop: () => void;
}

/**
 * Takes one of the user's stream slots before anything runs (the stream limit refuses with 429) and
 * watches the peer: a client that takes nothing for the write timeout is dropped.
 */
export function takeStreamSlot(c: Context, runtime: ServiceRuntime, user: string): BridgeStreamSlot {
  const slot = runtime.streams.take(user);
  const socket = incomingOf(c)?.socket;
  const drop = () => dropConnection(socket);
  socket?.once("close", watchPeer(slot, socket, drop));
  return { slot, drop };
}

/** Where a stream follows a session's log from: a run's handle, or (`done` unset) a replay point. */
export type FollowPoint = Pick<RunHandle, "sessionId" | "after"> & { done?: Promise<void> };

/**
 * A streamed response that follows a run the service already started: every event of the reply,
 * from the event log, written in the bridge's protocol by `frames`. The reply runs in the service and
 * goes on when the client leaves; the stream keeps the service's backpressure and write timeout.
 * Without `handle.done` it follows until `frames.done()` says the message is over.
 */
export function followStream(options: {
  runtime: ServiceRuntime;
  user: string;
  handle: FollowPoint;
  stream: BridgeStreamSlot;
  signal: AbortSignal;
  frames: BridgeFrames;
  headers: Record<string, string>;
}): Response {
  const { runtime, user, handle, frames } = options;
  const { slot, drop } = options.stream;
  const controller = new AbortController();
  const pacer = new StreamPacer(slot, () => {
    controller.abort();
    drop();
  });
  options.signal.addEventListener("abort", () => controller.abort(), { once: true });
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const write = (text: string) => {
    if (text === "" || controller.signal.aborted) return;
    try {
      out.enqueue(encoder.encode(text));
    } catch {
      controller.abort(); // the client has gone; the run goes on in the service
    }
  };

  const pump = async () => {
    try {
      const items = await runtime.follow(user, handle.sessionId, {
        after: handle.after,
        signal: controller.signal,
        ...(handle.done ? { until: handle.done } : {}),
      });
      for await (const item of items) {
        if (item.kind === "event") write(frames.event(item.event));
        else if (item.kind === "heartbeat") write(frames.heartbeat());
        if (frames.done?.()) break;
        await pacer.ready(out); // the follower waits while the client's queue is full
      }
      write(frames.finish());
    } catch (error) {
      write(frames.finish(toHttpError(error)));
    } finally {
      slot.release();
      try {
        out.close();
      } catch {
        // the client has gone
      }
    }
  };

  // `start` must return at once (a stream is not read before it resolves): the run is pumped apart.
  const body = new ReadableStream<Uint8Array>(
    {
      start(controllerOfStream) {
        out = controllerOfStream;
        void pump();
      },
      pull() {
        pacer.pulled();
      },
      cancel() {
        slot.release();
        controller.abort();
        pacer.pulled();
      },
    },
    pacer.strategy(),
  );
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...options.headers,
    },
  });
}

/** Every event of a run the service already started, until it ends or pauses (a non-streamed answer). */
export async function collectRun(
  runtime: ServiceRuntime,
  user: string,
  handle: RunHandle,
  signal: AbortSignal,
  onEvent: (event: AgentEvent) => void,
): Promise<void> {
  const items = await runtime.follow(user, handle.sessionId, {
    after: handle.after,
    signal,
    until: handle.done,
  });
  for await (const item of items) if (item.kind === "event") onEvent(item.event);
}
