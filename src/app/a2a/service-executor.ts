import { type Message, type Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent as A2AEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { type AgentEvent, applyEvent } from "../../event/index.js";
import { type Msg, userMsg } from "../../message/index.js";
import { finalText } from "../../multiagent/index.js";
import { ConfirmAnswerSchema } from "../../protocol/index.js";
import { askRequest, asksOfEvent, openAsks } from "../server/runtime/open-asks.js";
import type { RunHandle } from "../server/runtime/run-execution.js";
import type { ConfirmAnswer, ServiceRuntime } from "../server/runtime/service-runtime.js";
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
      await this.relay(handle, user, taskId, contextId, bus);
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

  /** A new message starts a reply; an answer to an input-required task resumes the paused one. */
  private async start(
    user: string,
    sessionId: string,
    message: Message,
    task: Task | undefined,
  ): Promise<RunHandle> {
    const waiting = task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? pendingOf(task) : undefined;
    if (!waiting)
      return this.runtime.startReply(user, sessionId, [userMsg(textOfParts(message.parts) || "(empty)")]);
    const answers = answersFor(waiting, message);
    if (waiting.type === "REQUIRE_USER_CONFIRM")
      return this.runtime.confirm(user, sessionId, answers, waiting.replyId, { via: "a2a" });
    throw new Error(
      "external execution over A2A is not supported: answer with a confirmation or cancel the task",
    );
  }

  private async relay(
    handle: RunHandle,
    user: string,
    taskId: string,
    contextId: string,
    bus: ExecutionEventBus,
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
        const final = agentMessage(taskId, contextId, [textPart(text)]);
        bus.publish(this.status(taskId, contextId, state, final, metadata));
        return;
      }
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_WORKING, undefined, metadata));
    }
    if (pending) {
      // what it waits for, as the stored state and log say (its own calls' and its sub-runs' asks)
      const stored = await this.runtime.backend.store.load(handle.sessionId);
      const asks = stored ? await openAsks(this.runtime.backend, handle.sessionId, stored.state) : [];
      const requests = (asks.length > 0 ? asks : asksOfEvent(pending, handle.sessionId)).map(askRequest);
      const ask = agentMessage(taskId, contextId, [
        textPart(describeWaiting(pending)),
        dataPart({ [EVENT_METADATA_KEY]: pending, [REQUESTS_KEY]: requests }),
      ]);
      bus.publish(this.status(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, ask));
    }
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

/**
 * Answers from an A2A message: a data part `{ confirmResults: [{ toolCallId, confirmed, ... }] }` or
 * `{ confirmed: boolean }` (all waiting calls), else its text ("yes"/"approve"/"ok" confirms all, anything else refuses).
 * Answers are checked like the REST `answers` (a bad one is an error naming the field); an edited
 * `input` or a `rules` entry is decided by the agent's permission gate like any other answer.
 */
function answersFor(waiting: AgentEvent, message: Message): ConfirmAnswer[] {
  if (waiting.type !== "REQUIRE_USER_CONFIRM") return [];
  const data = dataOfParts(message.parts)[0] as
    | { confirmResults?: ConfirmAnswer[]; confirmed?: boolean }
    | undefined;
  if (data?.confirmResults !== undefined) {
    const parsed = ConfirmAnswerSchema.array().min(1).safeParse(data.confirmResults);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`confirmResults.${issue.path.join(".")}: ${issue.message}`);
    }
    return parsed.data;
  }
  const text = textOfParts(message.parts).trim();
  const confirmed = data?.confirmed ?? /^(y|yes|approve|approved|ok|confirm)\b/i.test(text);
  return waiting.toolCalls.map((call) => {
    const answer: ConfirmAnswer = { toolCallId: call.id, confirmed, input: call.input };
    if (!confirmed && text) answer.reason = text;
    return answer;
  });
}
