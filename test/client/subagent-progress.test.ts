import { expect, it } from "vitest";
import {
  applySessionEvent,
  emptySessionView,
  type SessionView,
  sessionViewFromHistory,
  subagentsOf,
  tasksInState,
} from "../../src/client/index.js";
import { type AgentEvent, createEvent, type Task } from "../../src/event/index.js";
import type { Msg, ToolResultBlock } from "../../src/message/index.js";

const fold = (events: AgentEvent[], view: SessionView = emptySessionView()) =>
  events.reduce((v, event) => applySessionEvent(v, event, v.lastEventId + 1), view);

const task = (id: string, status: Task["status"], owner?: string): Task => ({
  id,
  subject: `Do ${id}`,
  description: "",
  status,
  ...(owner ? { owner } : {}),
  dependencies: [],
  createdAt: "2026-12-03T00:00:00Z",
  updatedAt: "2026-12-03T00:00:00Z",
});

const taskEvent = (t: Task, change: "created" | "updated", source?: string) =>
  createEvent("CUSTOM", {
    replyId: "r1",
    name: "task_updated",
    value: { change, task: t },
    ...(source ? { source } : {}),
  });

it("the view's task list starts from the stored state and folds each top-level task event, live", () => {
  const stored = tasksInState({ tasks: [task("task_1", "pending"), { id: 3 }, "junk"] });
  expect(stored.map((t) => t.id)).toEqual(["task_1"]);
  const loaded = sessionViewFromHistory([], undefined, stored);
  const view = fold(
    [
      taskEvent(task("task_1", "in_progress", "reader"), "updated"),
      taskEvent(task("task_2", "pending"), "created"),
      // A sub-agent's own list (its events carry a source path) is not the session's.
      taskEvent(task("task_9", "pending"), "created", "main/reader"),
    ],
    loaded,
  );
  expect(view.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
    ["task_1", "in_progress", "reader"],
    ["task_2", "pending", undefined],
  ]);
  // Other events leave the list as it was (React can compare it by identity).
  const after = applySessionEvent(
    view,
    createEvent("HINT_BLOCK", { replyId: "r1", blockId: "h", text: "x" }),
  );
  expect(after.tasks).toBe(view.tasks);
  expect(tasksInState({})).toEqual([]);
});

const spawnCall = (id: string, input: Record<string, unknown>) => ({
  type: "tool_call" as const,
  id,
  name: "agent_spawn",
  input: JSON.stringify(input),
  state: "finished" as const,
});
const result = (id: string, name: string, output: string, state: ToolResultBlock["state"] = "success") => ({
  type: "tool_result" as const,
  id,
  name,
  output,
  state,
});
const reply = (id: string, content: Msg["content"]): Msg => ({
  id,
  name: "main",
  role: "assistant",
  content,
  metadata: {},
  createdAt: "2026-12-03T00:00:00Z",
});
const handle = (id: string, label: string) =>
  JSON.stringify({ subagent_id: id, label, status: "running", note: "it keeps running" });

it("a background spawn is running until an outcome names it: a hint, agent_wait, agent_cancel, agent_list", () => {
  const messages: Msg[] = [
    reply("r1", [
      spawnCall("c1", { template: "explorer", prompt: "p", label: "reader", background: true }),
      result("c1", "agent_spawn", handle("sub_1", "reader")),
      spawnCall("c2", { template: "explorer", prompt: "p" }),
      result("c2", "agent_spawn", handle("sub_2", "explorer-2")),
      spawnCall("c3", { template: "explorer", prompt: "p", label: "third" }),
      result("c3", "agent_spawn", handle("sub_3", "third")),
    ]),
  ];
  const running = subagentsOf({ messages, events: [], subRuns: [] });
  expect(running.map((s) => [s.subagentId, s.label, s.status, s.background])).toEqual([
    ["sub_1", "reader", "running", true],
    ["sub_2", "explorer-2", "running", true],
    ["sub_3", "third", "running", true],
  ]);

  messages.push(
    reply("r2", [
      {
        type: "hint",
        id: "h1",
        text: 'Sub-agent sub_1 ("reader", template explorer) completed. Its result:\nThree fixes.',
      },
      { type: "tool_call", id: "w", name: "agent_wait", input: "{}", state: "finished" },
      result("w", "agent_wait", 'Sub-agent sub_2 ("explorer-2", template explorer) failed: the model broke'),
      { type: "tool_call", id: "l", name: "agent_list", input: "{}", state: "finished" },
      result(
        "l",
        "agent_list",
        JSON.stringify({
          subagents: [
            { id: "sub_1", status: "running" },
            { id: "sub_3", status: "cancelled" },
          ],
        }),
      ),
    ]),
  );
  const ended = subagentsOf({ messages, events: [], subRuns: [] });
  expect(ended.map((s) => [s.subagentId, s.status, s.result])).toEqual([
    // An older "running" in a list does not revive an ended one.
    ["sub_1", "completed", "Three fixes."],
    ["sub_2", "failed", "the model broke"],
    ["sub_3", "cancelled", undefined],
  ]);
});

it("a waited-for spawn shows its nested run's latest activity, then its result; a refused one is failed", () => {
  const parent = createEvent("REPLY_START", {
    replyId: "p",
    sessionId: "s",
    name: "main",
    role: "assistant",
  });
  const source = "main/reader";
  const view = fold([
    parent,
    createEvent("TOOL_CALL_START", { replyId: "p", toolCallId: "c1", toolCallName: "agent_spawn" }),
    createEvent("TOOL_CALL_DELTA", {
      replyId: "p",
      toolCallId: "c1",
      delta: JSON.stringify({ template: "explorer", prompt: "p", label: "reader" }),
    }),
    createEvent("TOOL_CALL_END", { replyId: "p", toolCallId: "c1" }),
    createEvent("SUBAGENT_EXPOSED", {
      replyId: "child",
      source,
      name: "explorer",
      toolCallId: "c1",
      parentReplyId: "p",
      metadata: { subagentId: "sub_1", sessionId: "in-process-session", label: "reader" },
    }),
    createEvent("REPLY_START", {
      replyId: "child",
      source,
      sessionId: "x",
      name: "explorer",
      role: "assistant",
    }),
    createEvent("TEXT_BLOCK_START", { replyId: "child", source, blockId: "t" }),
    createEvent("TEXT_BLOCK_DELTA", {
      replyId: "child",
      source,
      blockId: "t",
      delta: "Reading   CHANGELOG.md",
    }),
  ]);
  const [live] = subagentsOf(view);
  expect(live).toMatchObject({
    toolCallId: "c1",
    subagentId: "sub_1",
    label: "reader",
    status: "running",
    background: false,
    source,
    activity: "Reading CHANGELOG.md",
  });
  // metadata.sessionId names the sub-agent's in-process session, which no one serves: no link.
  expect(live?.sessionId).toBeUndefined();

  const done = subagentsOf({
    ...view,
    messages: [
      reply("p", [
        spawnCall("c1", { template: "explorer", prompt: "p", label: "reader" }),
        result("c1", "agent_spawn", "Three fixes and a feature."),
        spawnCall("c2", { template: "nope", prompt: "p" }),
        result("c2", "agent_spawn", 'limit "maxConcurrent" reached: 4 running', "error"),
      ]),
    ],
  });
  expect(done.map((s) => [s.toolCallId, s.status, s.result])).toEqual([
    ["c1", "completed", "Three fixes and a feature."],
    ["c2", "failed", 'limit "maxConcurrent" reached: 4 running'],
  ]);
});

it("SUBAGENT_EXPOSED with the contract's sessionId links the spawn to the sub-agent's own session", () => {
  const view = fold([
    createEvent("REPLY_START", { replyId: "p", sessionId: "s", name: "main", role: "assistant" }),
    createEvent("TOOL_CALL_START", { replyId: "p", toolCallId: "c1", toolCallName: "agent_spawn" }),
    createEvent("TOOL_CALL_END", { replyId: "p", toolCallId: "c1" }),
    createEvent("SUBAGENT_EXPOSED", {
      replyId: "child",
      source: "main/desk",
      name: "desk",
      toolCallId: "c1",
      parentReplyId: "p",
      subagentId: "sub_4",
      agentId: "desk",
      sessionId: "desk-session",
      label: "desk",
    }),
  ]);
  expect(subagentsOf(view)).toMatchObject([
    { toolCallId: "c1", subagentId: "sub_4", label: "desk", sessionId: "desk-session", status: "running" },
  ]);
  expect(view.subRuns).toMatchObject([{ replyId: "child", toolCallId: "c1", sessionId: "desk-session" }]);
});
