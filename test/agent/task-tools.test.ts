import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, Session } from "../../src/agent/index.js";
import {
  type AgentEvent,
  applyTaskEvent,
  foldEvents,
  isTaskEvent,
  TASK_UPDATED,
  type Task,
} from "../../src/event/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { createStateStore, parseAgentState } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { taskTools } from "../../src/tool/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const planning: ScriptedStep[] = [
  {
    toolCalls: [
      { id: "c1", name: "TaskCreate", input: { subject: "Read the logs", description: "find the error" } },
      { id: "c2", name: "TaskCreate", input: { subject: "Fix the bug", dependencies: ["task_1"] } },
    ],
  },
  // Starting task_2 before task_1 is completed is refused; completing task_1 then works.
  {
    toolCalls: [
      { id: "c3", name: "TaskUpdate", input: { id: "task_2", status: "in_progress" } },
      { id: "c4", name: "TaskUpdate", input: { id: "task_1", status: "completed", owner: "main" } },
    ],
  },
  { toolCalls: [{ id: "c5", name: "TaskList", input: {} }] },
  { text: "Planned." },
];

function planner(steps: ScriptedStep[], mode: "default" | "explore" = "default") {
  return new Agent({
    name: "main",
    model: new ScriptedModel(steps),
    toolkit: taskTools(),
    permission: { mode },
  });
}

const resultOf = (events: AgentEvent[], id: string) =>
  blocksOf(foldEvents(events)!, "tool_result").find((r) => r.id === id)!;

describe("task tools", () => {
  it("create, refuse, update and list tasks in the state; each change is a task_updated event the task fold rebuilds", async () => {
    const agent = planner(planning);
    const events = await collect(agent.replyStream(userMsg("plan the fix")));

    const tasks = agent.state.tasks;
    expect(tasks.map((t) => [t.id, t.subject, t.status, t.dependencies, t.owner])).toEqual([
      ["task_1", "Read the logs", "completed", [], "main"],
      ["task_2", "Fix the bug", "pending", ["task_1"], undefined],
    ]);
    expect(tasks[0]!.description).toBe("find the error");

    const refused = resultOf(events, "c3");
    expect(refused.state).toBe("error");
    expect(JSON.stringify(refused.output)).toContain("before the tasks it depends on are completed: task_1");

    const changes = events.filter(isTaskEvent);
    expect(changes.map((e) => [e.value.change, e.value.task.id, e.value.task.status])).toEqual([
      ["created", "task_1", "pending"],
      ["created", "task_2", "pending"],
      ["updated", "task_1", "completed"],
    ]);
    expect(changes.every((e) => e.name === TASK_UPDATED && e.replyId === events[0]!.replyId)).toBe(true);
    // The event stream alone rebuilds the task list, and the reply Msg stays what the agent stored.
    const folded = events.reduce<readonly Task[]>(applyTaskEvent, []);
    expect(folded).toEqual(tasks);
    expect(foldEvents(events)).toEqual(agent.state.context.at(-1));

    const listed = resultOf(events, "c5");
    expect(JSON.parse(String(listed.output))).toEqual({
      tasks: [
        { id: "task_1", subject: "Read the logs", status: "completed", owner: "main" },
        { id: "task_2", subject: "Fix the bug", status: "pending" },
      ],
    });
  });

  it("refuses what would corrupt the list and changes nothing: unknown ids, self and cyclic dependencies", async () => {
    const agent = planner([
      {
        toolCalls: [
          { id: "a", name: "TaskCreate", input: { subject: "one" } },
          { id: "b", name: "TaskCreate", input: { subject: "two", dependencies: ["task_1"] } },
        ],
      },
      {
        toolCalls: [
          { id: "c", name: "TaskCreate", input: { subject: "three", dependencies: ["task_9"] } },
          { id: "d", name: "TaskUpdate", input: { id: "task_1", dependencies: ["task_2"] } },
          { id: "e", name: "TaskUpdate", input: { id: "task_2", dependencies: ["task_2"] } },
          { id: "f", name: "TaskGet", input: { id: "task_7" } },
          { id: "g", name: "TaskUpdate", input: { id: "task_1", status: "done" } },
        ],
      },
      { text: "ok" },
    ]);
    const events = await collect(agent.replyStream(userMsg("go")));
    const text = (id: string) => JSON.stringify(resultOf(events, id).output);
    expect(text("c")).toContain('no task \\"task_9\\" (the tasks are task_1, task_2)');
    expect(text("d")).toContain('\\"task_2\\" already depends on \\"task_1\\"');
    expect(text("e")).toContain("cannot depend on itself");
    expect(text("f")).toContain('no task \\"task_7\\"');
    expect(text("g")).toContain("status");
    for (const id of ["c", "d", "e", "f", "g"]) expect(resultOf(events, id).state).toBe("error");
    expect(agent.state.tasks.map((t) => [t.id, t.dependencies])).toEqual([
      ["task_1", []],
      ["task_2", ["task_1"]],
    ]);
    expect(events.filter(isTaskEvent)).toHaveLength(2);
  });

  it("run in explore mode, which denies every write: they change only the session's own list", async () => {
    const agent = planner(
      [{ toolCalls: [{ id: "a", name: "TaskCreate", input: { subject: "look around" } }] }, { text: "ok" }],
      "explore",
    );
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(resultOf(events, "a").state).toBe("success");
    expect(agent.state.tasks).toHaveLength(1);
  });

  it("stored states of schema version 1 (untyped task records) load as typed tasks", () => {
    const v1 = {
      schemaVersion: 1,
      sessionId: "old",
      context: [],
      permission: { mode: "default", rules: [], workingDirectories: [] },
      toolContext: {},
      tasks: [
        { id: "task_1", subject: "List files", status: "in_progress" },
        { id: "x-7", title: "Write it down", status: "done", blockedBy: ["task_1"], priority: 2 },
        { content: "Ship", dependsOn: ["x-7"], owner: "release-bot" },
      ],
      middleware: {},
    };
    const state = parseAgentState(JSON.stringify(v1));
    expect(state.schemaVersion).toBe(2);
    expect(state.tasks.map((t) => [t.id, t.subject, t.status, t.dependencies, t.owner])).toEqual([
      ["task_1", "List files", "in_progress", [], undefined],
      ["task_2", "Write it down", "completed", ["task_1"], undefined],
      ["task_3", "Ship", "pending", ["task_2"], "release-bot"],
    ]);
    expect(state.tasks[1]!.metadata).toEqual({ legacy: { priority: 2 } });
    expect(() => parseAgentState({ ...v1, tasks: [{ status: "done" }] })).toThrow(/tasks\[0\]\.subject/);
    expect(() => parseAgentState({ ...v1, tasks: ["a string"] })).toThrow(/tasks\[0\]/);
    // A current state is validated, not migrated: a bad status names the field.
    const v2 = parseAgentState(JSON.stringify(v1));
    const broken = { ...v2, tasks: [{ ...v2.tasks[0]!, status: "done" }] };
    expect(() => parseAgentState(broken)).toThrow(/tasks\[0\]\.status/);
  });
});

const stores = [
  { name: "sqlite", port: undefined, url: (dir: string) => `sqlite:${join(dir, "state.db")}`, options: {} },
  {
    name: "postgres",
    port: 5432,
    url: () => "postgres://postgres@127.0.0.1:5432/test",
    options: { table: runName("tasks") },
  },
];

for (const backend of stores) {
  describe(`the task list survives a restart on ${backend.name}`, async () => {
    const missing = backend.port ? await missingService(backend.name, backend.port) : undefined;
    if (missing) {
      reportMissingService(missing);
      return;
    }

    it("a new agent and store client open the session and read and change the saved tasks", async () => {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-tasks-"));
      const sessionId = runName("t");
      const first = await createStateStore(backend.url(dir), backend.options);
      try {
        const session = await Session.open(planner(planning), first, sessionId);
        await session.reply(userMsg("plan the fix"));
      } finally {
        await first.close();
      }

      const second = await createStateStore(backend.url(dir), backend.options);
      try {
        const later = planner([
          { toolCalls: [{ id: "s", name: "TaskUpdate", input: { id: "task_2", status: "in_progress" } }] },
          { text: "started" },
        ]);
        const session = await Session.open(later, second, sessionId);
        expect(session.state.tasks.map((t) => [t.id, t.status])).toEqual([
          ["task_1", "completed"],
          ["task_2", "pending"],
        ]);
        const reply = await session.reply(userMsg("start the fix"));
        expect(blocksOf(reply, "tool_result")[0]!.state).toBe("success");
        const reloaded = await second.load(sessionId);
        expect(reloaded?.state.tasks.map((t) => [t.id, t.status])).toEqual([
          ["task_1", "completed"],
          ["task_2", "in_progress"],
        ]);
        await second.delete(sessionId);
      } finally {
        await second.close();
      }
    });
  });
}
