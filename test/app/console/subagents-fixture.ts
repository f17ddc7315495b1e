import { z } from "zod";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import type { Msg } from "../../../src/message/index.js";
import type { ChatModel } from "../../../src/model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../../src/testing/index.js";
import { functionTool, type Tool, taskTools } from "../../../src/tool/index.js";

export const READER_ANSWER = "The changelog lists 3 fixes and 1 feature.";
export const DESK_GREETING = "Desk here: tell me what to file, and I will file it for you.";

/** A gate a scripted sub-agent waits on, so the console sees it running first. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

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

/**
 * The desk agent (the exposed session's): its spawn prompt is answered once `released` settles (so
 * the console opens it while it runs and sees it stream); "write" asks before it writes.
 */
const deskModel = (released: Promise<void>) =>
  playing(async (messages) => {
    if (messages.at(-1)?.content.some((b) => b.type === "tool_result")) return { text: "Filed it." };
    const text = lastUserText(messages);
    if (text.includes("write"))
      return { toolCalls: [{ name: "write_note", input: { text: "ship on Friday" } }] };
    if (text.includes("requests")) {
      await released;
      return { text: DESK_GREETING };
    }
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
  /** Lets the background reader finish. */
  releaseReader(): void;
  /** Lets the exposed desk answer its spawn prompt. */
  releaseDesk(): void;
  close(): Promise<void>;
}

/**
 * The service for the sub-agent console tests, from a service config as users write one, with the
 * service's own `agent_spawn`: "main" has the task tools and a "reader" template it spawns in the
 * background on task_1 (the reader answers once `releaseReader()` is called, so it is seen running
 * first; `followUp: false`, so its outcome reaches main's next step); "lobby" spawns its "desk"
 * template with `expose_to_user` (a session of its own, `<lobby session>.sub_1`, that asks before
 * `write_note`, in the desk agent's default mode).
 */
export async function startSubagentsService(): Promise<SubagentsService> {
  const reader = gate();
  const desk = gate();
  const server: RunningServer = await startServer({
    config: {
      agents: [
        {
          name: "main",
          model: mainModel,
          tools: taskTools(),
          spawn: {
            templates: [{ name: "reader", description: "Reads a file and reports", agent: "reader" }],
            followUp: false,
          },
        },
        {
          name: "reader",
          model: playing(async () => {
            await reader.opened;
            return { text: READER_ANSWER };
          }),
        },
        {
          name: "lobby",
          model: lobbyModel,
          spawn: { templates: [{ name: "desk", description: "Takes the user's requests", agent: "desk" }] },
        },
        { name: "desk", model: deskModel(desk.opened), tools: [writeNote] },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: "",
    workspaces: false,
  });
  return {
    base: server.url,
    releaseReader: reader.open,
    releaseDesk: desk.open,
    close: () => server.close(),
  };
}
