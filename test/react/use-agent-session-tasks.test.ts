import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterAll, afterEach, expect, it } from "vitest";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import type { Msg } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/core.js";
import { useAgentSession } from "../../src/react/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { taskTools } from "../../src/tool/index.js";
import { closePage } from "./dom.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(closePage);
afterEach(async () => {
  cleanup();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function playing(turn: (messages: Msg[]) => ScriptedTurn): ChatModel {
  const base = new ScriptedModel([]);
  return {
    name: "keyword",
    provider: "scripted",
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages, opts) => new ScriptedModel([turn(messages)], { chunkSize: 8 }).stream(messages, opts),
  };
}

const toolResults = (messages: Msg[]) =>
  messages
    .slice(messages.findLastIndex((m) => m.role === "user") + 1)
    .flatMap((m) => m.content.filter((b) => b.type === "tool_result"));

/** "plan": a task, then an explorer spawned on it (it answers at once), then a line. */
const mainModel = playing((messages) => {
  const done = toolResults(messages);
  if (done.length === 0)
    return { toolCalls: [{ name: "TaskCreate", input: { subject: "Read the changelog" } }] };
  if (done.length === 1)
    return {
      toolCalls: [
        {
          name: "agent_spawn",
          input: { template: "explorer", prompt: "Read it", label: "reader", task_id: "task_1" },
        },
      ],
    };
  return { text: "Planned." };
});

it("useAgentSession gives the session's tasks and spawned sub-agents, live and after a remount", async () => {
  const server = await startServer({
    config: {
      agents: [
        {
          name: "main",
          model: mainModel,
          tools: taskTools(),
          spawn: { templates: [{ name: "explorer", description: "Reads", agent: "explorer" }] },
        },
        { name: "explorer", model: playing(() => ({ text: "Three fixes." })) },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: "",
    workspaces: false,
  });
  cleanups.push(() => server.close());
  const client = new AgentScopeClient({ baseUrl: server.url, retry: { initialDelayMs: 20 } });
  const { sessionId } = await client.createSession();
  const { result, unmount } = renderHook(() => useAgentSession({ client, sessionId }));
  await waitFor(() => expect(result.current.status).toBe("idle"));
  expect(result.current.tasks).toEqual([]);
  expect(result.current.subagents).toEqual([]);

  await act(() => result.current.send("plan"));
  await waitFor(() => expect(result.current.status).toBe("idle"));
  // The spawn took task_1 and, done in time, completed it: both from the reply's task events.
  expect(result.current.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
    ["task_1", "completed", "reader"],
  ]);
  expect(result.current.subagents).toMatchObject([
    { subagentId: "sub_1", label: "reader", status: "completed", background: false, result: "Three fixes." },
  ]);
  unmount();

  // Mounted again: the list comes from the stored state, the sub-agent from the stored reply.
  const again = renderHook(() => useAgentSession({ client, sessionId }));
  await waitFor(() => expect(again.result.current.status).toBe("idle"));
  expect(again.result.current.tasks.map((t) => [t.id, t.status])).toEqual([["task_1", "completed"]]);
  expect(again.result.current.subagents).toMatchObject([{ label: "reader", status: "completed" }]);
});
