import { type Message, type Part, type Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { type AgentEvent, applyEvent } from "../../event/index.js";
import { type Msg, userMsg } from "../../message/index.js";
import { finalText } from "../../multiagent/index.js";
import { askRequest, asksOfEvent, type OpenAsk } from "../server/runtime/open-asks.js";
import type { RunHandle } from "../server/runtime/run-execution.js";
import type { ServiceRuntime } from "../server/runtime/service-runtime.js";
import { sessionAsks } from "../server/spawn/subagent-asks.js";
import { requestsOf, routeAnswers } from "./task-answers.js";
import {
  agentMessage,
  dataOfParts,
  dataPart,
  describeWaiting,
  EVENT_METADATA_KEY,
  newTask,
  REQUESTS_KEY,
  statusOf,
  textOfParts,
  textPart,
} from "./task-events.js";

/** The session that serves an A2A context: one session per contextId, per agent. */
export const sessionOfContext = (agent: string, contextId: string) =>
  `a2a.${agent}.${contextId}`.slice(0, 200);

/**
 * Runs an agent of the service for A2A tasks. A task's context is a session; a message starts a reply
 * in it. Top-level text streams as artifact updates; every other event rides along as a `working`
 * status update (our event in its metadata); a pause for a confirmation or external results is
 * `input-required` (the waiting calls in a data part); the answer to it continues the same task;
 * REPLY_END is `completed` / `failed` / `canceled`; cancel interrupts the reply.
 */
export class ServiceAgentExecutor implements AgentExecutor {
  private readonly tasks = new Map<string, { user: string; sessionId: string }>();

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly agent: string,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const user = request.context.user?.userName ?? "";
    const sessionId = sessionOfContext(this.agent, contextId);
    const task: Task = request.task ?? newTask(taskId, contextId, [request.userMessage]);
    bus.publish(A2AEvent.task(task));
    let started = false;
    try {
      await this.runtime.ensureSession(user, sessionId, { agent: this.agent });
      this.tasks.set(taskId, { user, sessionId });
      const handle = await this.start(user, sessionId, request.userMessage, request.task);
      started = true;
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_WORKING));
      await this.relay(handle, user, taskId, contextId, bus, sessionId);
    } catch (error) {
      const refusal = textPart(`Error: ${(error as Error).message}`);
      const asked = request.task?.status;
      if (!started && asked?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        // a refused answer (a call not waiting, a bad field) ran nothing: the same asks stay open
        const message = agentMessage(taskId, contextId, [refusal, ...(asked.message?.parts ?? [])]);
        bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, message));
        return;
      }
      const message = agentMessage(taskId, contextId, [refusal]);
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_FAILED, message));
    } finally {
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const known = this.tasks.get(taskId);
    if (!known) return;
    const result = await this.runtime.interrupt(known.user, known.sessionId, "canceled over A2A");
    if (result.was === "paused") {
      await result.run?.done;
      const contextId = known.sessionId;
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_CANCELED));
      bus.finished();
    }
    // A running reply ends with REPLY_END interrupted: the relay publishes `canceled`.
  }

  /**
   * A new message starts a reply; an answer to an input-required task resumes what waits: the paused
   * reply, and the spawned sub-agent sessions whose asks the task listed (each first, to its end).
   */
  private async start(
    user: string,
    sessionId: string,
    message: Message,
    task: Task | undefined,
  ): Promise<RunHandle> {
    const asked = task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? task.status : undefined;
    if (!asked)
      return this.runtime.startReply(user, sessionId, [userMsg(textOfParts(message.parts) || "(empty)")]);
    const pending = pendingOf(task!);
    const requests = requestsOf(asked.message);
    if (pending?.type === "REQUIRE_EXTERNAL_EXECUTION" && requests.every((r) => r.sessionId === sessionId))
      throw new Error(
        "external execution over A2A is not supported: answer with a confirmation or cancel the task",
      );
    let handle: RunHandle | undefined;
    for (const group of routeAnswers(sessionId, requests, message, pending)) {
      await handle?.done;
      handle = await this.runtime.confirm(user, group.sessionId, group.answers, group.replyId, {
        via: "a2a",
      });
    }
    if (!handle) throw new Error("the answer names no waiting call");
    return handle;
  }

  private async relay(
    handle: RunHandle,
    user: string,
    taskId: string,
    contextId: string,
    bus: ExecutionEventBus,
    contextSession: string,
  ) {
    const controller = new AbortController();
    let msg: Msg | undefined;
    let pending: AgentEvent | undefined;
    let textStarted = false;
    // a resumed reply's run has no REPLY_START to fold from: its final text is what it streamed
    let streamed = "";
    const follow = await this.runtime.follow(user, handle.sessionId, {
      after: handle.after,
      signal: controller.signal,
      until: handle.done,
    });
    for await (const item of follow) {
      if (item.kind !== "event") continue;
      const event = item.event;
      if (event.source === undefined) msg = applyEvent(msg, event);
      const metadata = { [EVENT_METADATA_KEY]: event };
      if (event.type === "TEXT_BLOCK_DELTA" && event.source === undefined) {
        bus.publish(
          A2AEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: event.replyId,
              name: "answer",
              description: "",
              parts: [textPart(event.delta)],
              metadata: undefined,
              extensions: [],
            },
            append: textStarted,
            lastChunk: false,
            metadata,
          }),
        );
        textStarted = true;
        streamed += event.delta;
        continue;
      }
      if (event.type === "REQUIRE_USER_CONFIRM" || event.type === "REQUIRE_EXTERNAL_EXECUTION")
        pending = event;
      if (event.type === "REPLY_END" && event.source === undefined) {
        const state =
          event.finishedReason === "interrupted"
            ? TaskState.TASK_STATE_CANCELED
            : event.finishedReason === "error"
              ? TaskState.TASK_STATE_FAILED
              : TaskState.TASK_STATE_COMPLETED;
        const text = event.error ? `Error: ${event.error.message}` : (msg && finalText(msg)) || streamed;
        // a sub-agent the context spawned may still wait on the person: the task then waits too
        const asks =
          state === TaskState.TASK_STATE_COMPLETED
            ? await sessionAsks(this.runtime.backend, contextSession)
            : [];
        if (asks.length > 0) {
          bus.publish(this.inputRequired(taskId, contextId, asks, [textPart(text)]));
          return;
        }
        const final = agentMessage(taskId, contextId, [textPart(text)]);
        bus.publish(this.status(taskId, contextId, state, final, metadata));
        return;
      }
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_WORKING, undefined, metadata));
    }
    if (pending) {
      // what it waits for, as the stored state and log say: its own calls', its sub-runs' and its
      // spawned sub-agent sessions' asks
      const asks = await sessionAsks(this.runtime.backend, contextSession);
      const parts = [textPart(describeWaiting(pending))];
      bus.publish(
        this.inputRequired(
          taskId,
          contextId,
          asks.length > 0 ? asks : asksOfEvent(pending, handle.sessionId),
          parts,
          pending,
        ),
      );
    }
  }

  /** `input-required`, listing `asks` as requests in a data part (with the REQUIRE event it paused on). */
  private inputRequired(
    taskId: string,
    contextId: string,
    asks: readonly OpenAsk[],
    parts: Part[],
    pending?: AgentEvent,
  ) {
    const spawned = asks.filter((ask) => ask.subagentId !== undefined);
    const lines = spawned.map(
      (ask) => `Sub-agent ${ask.subagentId} (${ask.sessionId}) asks to run ${ask.call.name}.`,
    );
    const data = {
      ...(pending ? { [EVENT_METADATA_KEY]: pending } : {}),
      [REQUESTS_KEY]: asks.map(askRequest),
    };
    const message = agentMessage(taskId, contextId, [
      ...parts,
      ...(pending ? [] : lines.map(textPart)),
      dataPart(data),
    ]);
    return this.status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, message);
  }

  private status(
    taskId: string,
    contextId: string,
    state: TaskState,
    message?: Message,
    metadata?: Record<string, unknown>,
  ) {
    return A2AEvent.statusUpdate({ taskId, contextId, status: statusOf(state, message), metadata });
  }
}

/** The REQUIRE_* event an input-required task waits on (kept in its status message's data part). */
function pendingOf(task: Task): AgentEvent | undefined {
  const parts = task.status?.message?.parts ?? [];
  for (const value of dataOfParts(parts)) {
    const event = (value as Record<string, unknown> | null)?.[EVENT_METADATA_KEY] as AgentEvent | undefined;
    if (event?.type === "REQUIRE_USER_CONFIRM" || event?.type === "REQUIRE_EXTERNAL_EXECUTION") return event;
  }
  return undefined;
}
