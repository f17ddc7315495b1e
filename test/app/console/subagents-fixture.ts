import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { z } from "zod";
import { consoleRoutes } from "../../../src/app/console/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { studioRoutes } from "../../../src/app/server/http/studio-routes.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { createEvent } from "../../../src/event/index.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { agentSpawner } from "../../../src/multiagent/index.js";
import type { SessionParent } from "../../../src/protocol/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { functionTool, type Tool, taskTools } from "../../../src/tool/index.js";

/** The console's user when the service has no tokens. */
export const USER = "local";
export const READER_ANSWER = "The changelog lists 3 fixes and 1 feature.";
export const DESK_SESSION = "desk-session-1";

const lastUserText = (messages: Msg[]) =>
  (messages.findLast((m) => m.role === "user")?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ");

/** A model playing one turn per call, chosen by `turn` from the conversation. */
function playing(turn: (messages: Msg[]) => ScriptedTurn | Promise<ScriptedTurn>): ChatModel {
  const base = new ScriptedModel([]);
  return {
    name: "keyword",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    async *stream(messages, opts) {
      const played = await turn(messages);
      yield* new ScriptedModel([played], { chunkSize: 8 }).stream(messages, opts);
    },
  };
}

/** Tool results of the reply so far (after the last user message), by tool name. */
function resultsSinceUser(messages: Msg[]): string[] {
  const start = messages.findLastIndex((m) => m.role === "user");
  return messages
    .slice(start + 1)
    .flatMap((m) => m.content.filter((b) => b.type === "tool_result").map((b) => b.name));
}

/**
 * The main agent's script. "plan": two tasks (the second after the first), then a background
 * `agent_spawn` of the reader on task_1, then a line. "status": the reader's outcome reached it as
 * a hint; it starts task_2.
 */
const mainModel = playing((messages) => {
  const text = lastUserText(messages);
  const done = resultsSinceUser(messages);
  if (text.includes("plan")) {
    if (done.length === 0)
      return {
        toolCalls: [
          { name: "TaskCreate", input: { subject: "Read the changelog", owner: "main" } },
          { name: "TaskCreate", input: { subject: "Check the tests", dependencies: ["task_1"] } },
        ],
      };
    if (!done.includes("agent_spawn"))
      return {
        toolCalls: [
          {
            name: "agent_spawn",
            input: {
              template: "reader",
              prompt: "Read the changelog and say what changed.",
              label: "reader",
              task_id: "task_1",
              background: true,
            },
          },
        ],
      };
    return { text: "The reader works on the changelog in the background." };
  }
  if (text.includes("status")) {
    if (done.length === 0)
      return {
        toolCalls: [{ name: "TaskUpdate", input: { id: "task_2", status: "in_progress", owner: "main" } }],
      };
    return { text: "The reader is done; I am checking the tests." };
  }
  return { text: `You said: ${text}` };
});

/** The lobby's script: "desk" spawns the desk exposed to the user, then a line. */
const lobbyModel = playing((messages) => {
  if (resultsSinceUser(messages).length > 0) return { text: "Talk to the desk in its own conversation." };
  if (lastUserText(messages).includes("desk"))
    return {
      toolCalls: [
        {
          name: "agent_spawn",
          input: {
            template: "desk",
            prompt: "Take the user's requests.",
            label: "desk",
            expose_to_user: true,
          },
        },
      ],
    };
  return { text: "Lobby here." };
});

/** The desk agent (the exposed session's): "write" asks before it writes. */
const deskModel = playing((messages) => {
  if (messages.at(-1)?.content.some((b) => b.type === "tool_result")) return { text: "Filed it." };
  if (lastUserText(messages).includes("write"))
    return { toolCalls: [{ name: "write_note", input: { text: "ship on Friday" } }] };
  return { text: "Desk here." };
});

export const notes: string[] = [];
const writeNote = functionTool({
  name: "write_note",
  description: "Writes a note (asks first)",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => {
    notes.push(text);
    return `noted: ${text}`;
  },
}) as Tool;

export interface SubagentsService {
  base: string;
  runtime: ServiceRuntime;
  /** Lets the background reader finish. */
  releaseReader(): void;
  close(): Promise<void>;
}

/**
 * The service for the sub-agent console tests: "main" has the task tools, a spawner with a
 * "reader" template (it answers once `releaseReader()` is called, so it is seen running first).
 * "lobby"'s `agent_spawn` stands in for the service's `agent_spawn(expose_to_user)` (h40a's half of
 * #40, not on main yet): it creates the desk's session, listed with `parent` (the session directory
 * records the link as that service will), emits SUBAGENT_EXPOSED with the contract's `sessionId`,
 * `subagentId`, `agentId` and `label`, and returns the spawn's handle.
 */
export async function startSubagentsService(): Promise<SubagentsService> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const spawner = agentSpawner({
    templates: [
      {
        name: "reader",
        description: "Reads a file and reports",
        model: playing(async () => {
          await released;
          return { text: READER_ANSWER };
        }),
      },
    ],
  });
  const backend = memoryBackend();
  // The link a sub-agent session keeps to its parent: what the service's directory will record.
  const parents = new Map<string, SessionParent>();
  const create = backend.sessions.create.bind(backend.sessions);
  backend.sessions.create = (record) => {
    const parent = parents.get(record.sessionId);
    return create(parent ? ({ ...record, parent } as typeof record) : record);
  };
  let runtime!: ServiceRuntime;
  const exposingSpawn = functionTool({
    name: "agent_spawn",
    description: "Starts a sub-agent the user talks to",
    // Like agent_spawn: starting it changes nothing itself (the desk's own calls ask).
    readOnly: true,
    input: z.object({
      template: z.string(),
      prompt: z.string(),
      label: z.string(),
      expose_to_user: z.boolean(),
    }),
    execute: async (_input, ctx) => {
      const link = {
        sessionId: ctx.sessionId,
        toolCallId: ctx.toolCallId,
        subagentId: "sub_2",
        label: "desk",
      };
      parents.set(DESK_SESSION, link);
      await runtime.createSession(USER, { sessionId: DESK_SESSION, agent: "desk" });
      ctx.emit?.(
        createEvent("SUBAGENT_EXPOSED", {
          replyId: "reply_desk_exposed",
          source: "main/desk",
          name: "desk",
          toolCallId: ctx.toolCallId,
          parentReplyId: ctx.replyId,
          subagentId: "sub_2",
          agentId: "desk",
          sessionId: DESK_SESSION,
          label: "desk",
        }),
      );
      return { subagent_id: "sub_2", label: "desk", status: "running", session_id: DESK_SESSION };
    },
  }) as Tool;
  runtime = new ServiceRuntime({
    backend,
    agents: [
      {
        name: "main",
        model: mainModel,
        toolkit: [...spawner.tools, ...taskTools()],
        middlewares: [spawner.middleware],
      },
      { name: "lobby", model: lobbyModel, toolkit: [exposingSpawn] },
      { name: "desk", model: deskModel, toolkit: [writeNote] },
    ],
  });
  const app = createApp(runtime, { mounts: [studioRoutes(runtime), consoleRoutes()] });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    runtime,
    releaseReader: () => release(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
}
