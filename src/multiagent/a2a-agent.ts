// Types only at load time: the SDK's client is imported when the first request is made.
import type { AgentCard, Message, Part, Role as SdkRole, TaskState as SdkTaskState } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import type { z } from "zod";
import type { ReplyInput, ReplyOptions } from "../agent/index.js";
import type { AgentEvent, InputEvent } from "../event/index.js";
import { type Msg, newId, textOf } from "../message/index.js";
import { type AgentState, emptyAgentState } from "../state/index.js";
import type { AgentLike } from "./agent-like.js";
import { OrchestratedReply } from "./orchestrated-reply.js";
import { PARENT_SESSION_KEY } from "./sub-agent-tool.js";

export interface A2AAgentOptions {
  /** The agent's base URL (its card is at `<url>/.well-known/agent-card.json`; end a path with "/"). */
  url?: string;
  /** Or the card itself. */
  card?: AgentCard;
  /** The local name (default: the card's). */
  name?: string;
  /** A bearer token sent with every request. */
  auth?: { bearer: string };
  /** A fetch to use instead of the global one (proxies, custom auth). */
  fetch?: typeof fetch;
}

/** Where the remote conversation lives in the local state: the A2A context and a paused task. */
const REMOTE_KEY = "agentscope.a2a";
interface Remote {
  contextId?: string;
  /** The task waiting for input, and the local tool call that stands for its question. */
  waiting?: { taskId: string; toolCallId: string };
}

/** The A2A task states and roles this client reads (protocol enum numbers, as the SDK's enums). */
const TaskState = {
  TASK_STATE_COMPLETED: 3 as SdkTaskState,
  TASK_STATE_FAILED: 4 as SdkTaskState,
  TASK_STATE_CANCELED: 5 as SdkTaskState,
  TASK_STATE_INPUT_REQUIRED: 6 as SdkTaskState,
  TASK_STATE_REJECTED: 7 as SdkTaskState,
  TASK_STATE_AUTH_REQUIRED: 8 as SdkTaskState,
};
type TaskState = SdkTaskState;
const ROLE_USER = 1 as SdkRole;

/** The fields of a streamed task, message, status or artifact update this client reads. */
interface UpdateValue {
  id?: string;
  taskId?: string;
  contextId?: string;
  parts?: Part[];
  artifact?: { parts: Part[] };
  status?: { state: TaskState; message?: { parts: Part[] } };
}

/** The local tool call that stands for a remote agent's question (input-required). */
export const A2A_INPUT_TOOL = "a2a_input_required";

/**
 * A remote agent spoken to over A2A that behaves like a local one: `replyStream` yields our events,
 * mapped from the task's updates (artifact text → text blocks; completed / failed / canceled →
 * REPLY_END). A remote `input-required` becomes a confirmation of a local `a2a_input_required`
 * call: the reply pauses, and USER_CONFIRM_RESULT sends "yes" (or the refusal's reason) to the same
 * task. The A2A context id is kept in the state, so a session continues the remote conversation.
 * It can be a sub-agent tool or a team member.
 */
export class A2AAgent implements AgentLike {
  readonly name: string;
  state: AgentState;
  private client: Promise<Client> | undefined;

  constructor(private readonly options: A2AAgentOptions) {
    if (!options.url && !options.card) throw new TypeError("A2AAgent: give `url` or `card`");
    const name = options.name ?? options.card?.name;
    if (!name) throw new TypeError("A2AAgent: give `name` when only a URL is known");
    this.name = name;
    this.state = this.createState();
  }

  createState(sessionId: string = newId("session")): AgentState {
    return emptyAgentState(sessionId);
  }

  /** The remote agent's card. */
  async card(): Promise<AgentCard> {
    return (await this.connect()).getAgentCard();
  }

  async reply(input?: ReplyInput, options: ReplyOptions = {}): Promise<Msg> {
    for await (const _ of this.replyStream(input, options)) {
      // drained for its effect on the state
    }
    return (options.state ?? this.state).context.at(-1)!;
  }

  async *replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): AsyncGenerator<AgentEvent> {
    const state = options.state ?? this.state;
    state.toolContext[REMOTE_KEY] ??= {};
    const remote = state.toolContext[REMOTE_KEY] as Remote;
    let run: OrchestratedReply;
    let message: Message;
    if (isAnswer(input)) {
      run = OrchestratedReply.resume(this.name, state, input, options);
      const waiting = remote.waiting;
      if (!waiting) throw new TypeError(`${this.name}: no remote task is waiting for an answer`);
      run.emit(input.type, { ...input } as never);
      const answer = this.answerText(input, waiting.toolCallId);
      run.emit("TOOL_RESULT_START", { toolCallId: waiting.toolCallId, toolCallName: A2A_INPUT_TOOL });
      run.emit("TOOL_RESULT_TEXT_DELTA", { toolCallId: waiting.toolCallId, delta: answer.text });
      run.emit("TOOL_RESULT_END", {
        toolCallId: waiting.toolCallId,
        state: answer.refused ? "denied" : "success",
      });
      delete remote.waiting;
      if (answer.interrupt) {
        yield* run.drain();
        await (await this.connect()).cancelTask({ id: waiting.taskId } as never).catch(() => undefined);
        return yield* run.end("interrupted");
      }
      message = this.message(answer.text, remote.contextId, waiting.taskId);
    } else {
      const messages = input === undefined ? [] : Array.isArray(input) ? input : [input];
      run = OrchestratedReply.start(this.name, state, messages, options);
      const text = messages.map(textOf).join("\n");
      message = this.message(text, remote.contextId);
    }
    yield* run.drain();
    // The seeds' task metadata on every event forwarded from the remote task: its A2A task id and the
    // session that delegated to it (a sub-agent tool's parent, else the session it runs in).
    const task: { taskId?: string } = {};
    const parentSessionId = (state.toolContext[PARENT_SESSION_KEY] as string | undefined) ?? state.sessionId;
    for await (const event of this.relay(run, remote, message, options.signal, task)) {
      yield task.taskId
        ? { ...event, metadata: { ...event.metadata, taskId: task.taskId, parentSessionId } }
        : event;
    }
  }

  private async *relay(
    run: OrchestratedReply,
    remote: Remote,
    message: Message,
    signal: AbortSignal | undefined,
    task: { taskId?: string },
  ) {
    const client = await this.connect();
    let blockId: string | undefined;
    let taskId: string | undefined = message.taskId || undefined;
    task.taskId = taskId;
    const closeText = () => {
      if (blockId) run.emit("TEXT_BLOCK_END", { blockId });
      blockId = undefined;
    };
    const say = (text: string) => {
      if (!text) return;
      if (!blockId) {
        blockId = newId("blk");
        run.emit("TEXT_BLOCK_START", { blockId });
      }
      run.emit("TEXT_BLOCK_DELTA", { blockId, delta: text });
    };
    let streamedText = false;
    try {
      for await (const update of client.sendMessageStream(
        { message } as never,
        signal ? { signal } : undefined,
      )) {
        const payload = (update as { payload?: { $case: string; value: UpdateValue } }).payload;
        if (!payload) continue;
        const value = payload.value;
        if (value.contextId) remote.contextId = value.contextId;
        if (payload.$case === "task") taskId = value.id;
        if (taskId) task.taskId = taskId;
        if (payload.$case === "message") {
          say(partsText(value.parts ?? []));
          break;
        }
        if (payload.$case === "artifactUpdate") {
          const text = partsText(value.artifact?.parts ?? []);
          if (text) streamedText = true;
          say(text);
        }
        // A task payload is the task as it stood (on an answer: still input-required); updates tell what happens.
        const status = payload.$case === "statusUpdate" ? value.status : undefined;
        if (status) taskId = value.taskId ?? value.id ?? taskId;
        const state: TaskState | undefined = status?.state;
        if (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED) {
          closeText();
          yield* run.drain();
          return yield* this.pause(run, remote, taskId!, partsText(status?.message?.parts ?? []));
        }
        if (
          state === TaskState.TASK_STATE_COMPLETED ||
          state === TaskState.TASK_STATE_FAILED ||
          state === TaskState.TASK_STATE_CANCELED ||
          state === TaskState.TASK_STATE_REJECTED
        ) {
          const text = partsText(status?.message?.parts ?? []);
          if (!streamedText || state !== TaskState.TASK_STATE_COMPLETED) say(text);
          closeText();
          const reason =
            state === TaskState.TASK_STATE_COMPLETED
              ? "completed"
              : state === TaskState.TASK_STATE_CANCELED
                ? "interrupted"
                : "error";
          if (reason === "error") {
            return yield* run.end("error", undefined, {
              type: "upstream",
              message: text || "the remote task failed",
            });
          }
          return yield* run.end(reason);
        }
        yield* run.drain();
      }
    } catch (error) {
      closeText();
      if (signal?.aborted) {
        if (taskId) await client.cancelTask({ id: taskId } as never).catch(() => undefined);
        return yield* run.end("interrupted");
      }
      run.say(`Error: ${(error as Error).message}`);
      return yield* run.end("error");
    }
    closeText();
    yield* run.end("completed");
  }

  /** The remote asks: a local call that waits for a confirmation stands for its question. */
  private async *pause(run: OrchestratedReply, remote: Remote, taskId: string, question: string) {
    const toolCallId = newId("call");
    run.emit("TOOL_CALL_START", { toolCallId, toolCallName: A2A_INPUT_TOOL });
    run.emit("TOOL_CALL_DELTA", { toolCallId, delta: JSON.stringify({ question }) });
    run.emit("TOOL_CALL_END", { toolCallId });
    run.emit("REQUIRE_USER_CONFIRM", {
      toolCalls: [
        {
          type: "tool_call",
          id: toolCallId,
          name: A2A_INPUT_TOOL,
          input: JSON.stringify({ question }),
          state: "pending",
          reason: question,
        } as never,
      ],
    });
    remote.waiting = { taskId, toolCallId };
    run.state.replyContext!.waitingFor = "user_confirm";
    yield* run.drain();
  }

  private answerText(
    input: InputEvent,
    toolCallId: string,
  ): { text: string; refused: boolean; interrupt: boolean } {
    if (input.type === "USER_INTERRUPT") return { text: "[interrupted]", refused: true, interrupt: true };
    if (input.type === "EXTERNAL_EXECUTION_RESULT")
      throw new TypeError(`${this.name}: answer the remote question with USER_CONFIRM_RESULT`);
    const answer = input.confirmResults.find((a) => a.toolCall.id === toolCallId);
    if (!answer)
      throw new TypeError(`${this.name}: USER_CONFIRM_RESULT does not answer call "${toolCallId}"`);
    return answer.confirmed
      ? { text: "yes", refused: false, interrupt: false }
      : { text: `no${answer.reason ? `: ${answer.reason}` : ""}`, refused: true, interrupt: false };
  }

  private message(text: string, contextId?: string, taskId?: string): Message {
    return {
      messageId: newId("msg"),
      contextId: contextId ?? "",
      taskId: taskId ?? "",
      role: ROLE_USER,
      parts: [textPart(text || "(empty)")],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
  }

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const base = this.options.fetch ?? fetch;
      const bearer = this.options.auth?.bearer;
      const fetchImpl: typeof fetch = bearer
        ? (url, init) => {
            const headers = new Headers(init?.headers);
            headers.set("Authorization", `Bearer ${bearer}`);
            return base(url, { ...init, headers });
          }
        : base;
      const { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } =
        await import("@a2a-js/sdk/client");
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
      );
      return this.options.card
        ? factory.createFromAgentCard(this.options.card)
        : factory.createFromUrl(this.options.url!);
    })();
    return this.client;
  }
}

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

function partsText(parts: Part[]): string {
  return parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
}

function isAnswer(input: ReplyInput): input is InputEvent {
  return typeof input === "object" && input !== null && !Array.isArray(input) && "type" in input;
}
