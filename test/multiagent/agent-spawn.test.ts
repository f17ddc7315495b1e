import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import {
  applyTaskEvent,
  foldEvents,
  isTaskEvent,
  type SubagentExposedEvent,
  type Task,
} from "../../src/event/index.js";
import { blocksOf, type Msg, userMsg } from "../../src/message/index.js";
import { type AgentSpawner, agentSpawner, SPAWNS_KEY, type SpawnRecord } from "../../src/multiagent/index.js";
import { parseAgentState } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool, type Tool, taskTools } from "../../src/tool/index.js";
import { collect, gate, noteTool } from "./helpers.js";

function parent(spawner: AgentSpawner, steps: ScriptedStep[], extra: Tool[] = [], mode = "default" as const) {
  return new Agent({
    name: "main",
    model: new ScriptedModel(steps, { name: "main-model" }),
    toolkit: [...spawner.tools, ...extra],
    middlewares: [spawner.middleware],
    permission: { mode },
  });
}

const child = (steps: ScriptedStep[]) => new ScriptedModel(steps, { name: "child-model" });
const resultOf = (msg: Msg, id: string) => blocksOf(msg, "tool_result").find((r) => r.id === id)!;
const recordsOf = (agent: Agent) => agent.state.toolContext[SPAWNS_KEY] as SpawnRecord[];
/** The hints among the messages a model call received. */
const hintsIn = (messages: Msg[]) => messages.flatMap((m) => blocksOf(m, "hint").map((h) => h.text));

describe("agent_spawn", () => {
  it("a sub-agent that finishes in time: its result is the call's result, its events stream nested", async () => {
    const spawner = agentSpawner({
      templates: [
        {
          name: "researcher",
          description: "Looks things up",
          model: child([{ text: "A pug is a small dog.", usage: { inputTokens: 7, outputTokens: 5 } }]),
        },
      ],
    });
    const main = parent(spawner, [
      {
        toolCalls: [
          { id: "s", name: "agent_spawn", input: { template: "researcher", prompt: "What is a pug?" } },
        ],
      },
      { text: "It is a small dog." },
    ]);
    const events = await collect(main.replyStream(userMsg("pugs?")));
    const stored = main.state.context.at(-1)!;
    expect(resultOf(stored, "s")).toMatchObject({ state: "success", output: "A pug is a small dog." });
    expect(foldEvents(events)).toEqual(stored);

    const exposed = events.find((e): e is SubagentExposedEvent => e.type === "SUBAGENT_EXPOSED")!;
    expect(exposed).toMatchObject({
      name: "researcher",
      toolCallId: "s",
      parentReplyId: stored.id,
      source: "main/researcher-1",
      metadata: { subagentId: "sub_1", label: "researcher-1" },
    });
    const nested = events.filter((e) => e.replyId === exposed.replyId);
    expect(nested.map((e) => e.type)).toContain("REPLY_END");
    expect(nested.every((e) => e.source === "main/researcher-1")).toBe(true);
    // Forwarded events carry the seeds' task metadata: the sub-agent's task (here its id) and the parent's session.
    expect(exposed).toMatchObject({ subagentId: "sub_1", agentId: "researcher", label: "researcher-1" });
    for (const event of nested)
      expect(event.metadata).toMatchObject({ taskId: "sub_1", parentSessionId: main.state.sessionId });
    // Its usage is rolled up into the parent's reply.
    expect(stored.usage?.inputTokens).toBeGreaterThanOrEqual(7);

    const [record] = recordsOf(main);
    expect(record).toMatchObject({ id: "sub_1", status: "completed", delivered: true, background: false });
    expect(events.some((e) => e.type === "HINT_BLOCK")).toBe(false);
  });

  it("one that is not done in time is promoted to the background; its result reaches the parent's next step", async () => {
    const { open, hold } = gate();
    const spawner = agentSpawner({
      templates: [
        {
          name: "slow",
          description: "Takes its time",
          model: child([{ toolCalls: [{ name: "hold", input: {} }] }, { text: "held done" }]),
          tools: [hold],
        },
      ],
    });
    const release = functionTool({
      name: "release",
      description: "Lets the sub-agent finish",
      input: z.object({}),
      readOnly: true,
      pathsOf: () => [],
      execute: async (_input, ctx) => {
        open();
        await spawner.settled(ctx.sessionId, "sub_1");
        return "released";
      },
    });
    let seenByThirdStep: string[] = [];
    const main = parent(
      spawner,
      [
        {
          toolCalls: [
            {
              id: "s",
              name: "agent_spawn",
              input: { template: "slow", prompt: "hold on", timeout_seconds: 0.05 },
            },
          ],
        },
        { toolCalls: [{ id: "r", name: "release", input: {} }] },
        (messages) => {
          seenByThirdStep = hintsIn(messages);
          return { text: "The sub-agent said: held done" };
        },
      ],
      [release],
    );
    const events = await collect(main.replyStream(userMsg("go")));
    const stored = main.state.context.at(-1)!;

    const handle = JSON.parse(String(resultOf(stored, "s").output));
    expect(handle).toMatchObject({ subagent_id: "sub_1", status: "running" });
    expect(handle.note).toContain("not done after 0.05 s");
    // The hint with its result came before the third reasoning step, and is in the reply.
    expect(seenByThirdStep).toEqual([
      'Sub-agent sub_1 ("slow-1", template slow) completed. Its result:\nheld done',
    ]);
    const hint = events.find((e) => e.type === "HINT_BLOCK");
    expect(hint).toBeDefined();
    expect(foldEvents(events)).toEqual(stored);
    // Once promoted, its events no longer go through the parent's stream.
    const exposed = events.find((e): e is SubagentExposedEvent => e.type === "SUBAGENT_EXPOSED")!;
    expect(events.some((e) => e.replyId === exposed.replyId && e.type === "REPLY_END")).toBe(false);
    expect(recordsOf(main)[0]).toMatchObject({ status: "completed", background: true, delivered: true });
  });

  it("background: true returns at once; agent_wait returns the result and no hint repeats it", async () => {
    const { open, hold } = gate();
    const spawner = agentSpawner({
      templates: [
        {
          name: "slow",
          description: "Takes its time",
          model: child([{ toolCalls: [{ name: "hold", input: {} }] }, { text: "waited for" }]),
          tools: [hold],
        },
      ],
    });
    let hints: string[] = ["not called"];
    const main = parent(spawner, [
      {
        toolCalls: [
          { id: "s", name: "agent_spawn", input: { template: "slow", prompt: "x", background: true } },
        ],
      },
      () => {
        open();
        return {
          toolCalls: [{ id: "w", name: "agent_wait", input: { subagent_id: "sub_1", timeout_seconds: 600 } }],
        };
      },
      (messages) => {
        hints = hintsIn(messages);
        return { toolCalls: [{ id: "l", name: "agent_list", input: {} }] };
      },
      { text: "done" },
    ]);
    const events = await collect(main.replyStream(userMsg("go")));
    const stored = main.state.context.at(-1)!;
    expect(JSON.parse(String(resultOf(stored, "s").output)).note).toContain("background as asked");
    expect(events.some((e) => e.type === "SUBAGENT_EXPOSED")).toBe(false);
    expect(String(resultOf(stored, "w").output)).toContain("completed. Its result:\nwaited for");
    expect(hints).toEqual([]);
    expect(JSON.parse(String(resultOf(stored, "l").output))).toEqual({
      subagents: [{ id: "sub_1", label: "slow-1", template: "slow", status: "completed" }],
    });
  });

  it("agent_cancel stops a running sub-agent", async () => {
    const { hold } = gate();
    const spawner = agentSpawner({
      templates: [
        {
          name: "slow",
          description: "never ends",
          model: child([{ toolCalls: [{ name: "hold", input: {} }] }]),
          tools: [hold],
        },
      ],
    });
    const main = parent(spawner, [
      {
        toolCalls: [
          { id: "s", name: "agent_spawn", input: { template: "slow", prompt: "x", background: true } },
        ],
      },
      {
        toolCalls: [{ id: "c", name: "agent_cancel", input: { subagent_id: "sub_1", reason: "not needed" } }],
      },
      { toolCalls: [{ id: "c2", name: "agent_cancel", input: { subagent_id: "sub_9" } }] },
      { text: "ok" },
    ]);
    await collect(main.replyStream(userMsg("go")));
    const stored = main.state.context.at(-1)!;
    expect(String(resultOf(stored, "c").output)).toContain("cancelled: not needed");
    expect(resultOf(stored, "c2")).toMatchObject({ state: "error" });
    expect(String(resultOf(stored, "c2").output)).toContain(
      'no sub-agent "sub_9" in this session (spawned: sub_1)',
    );
    expect(recordsOf(main)[0]).toMatchObject({ status: "cancelled" });
  });

  it("a template never widens the parent's permission: bypass under an explore parent runs in explore", async () => {
    const written: string[] = [];
    const spawner = agentSpawner({
      templates: [
        {
          name: "writer",
          description: "Writes notes",
          model: child([
            { toolCalls: [{ id: "n", name: "write_note", input: { text: "x" } }] },
            { text: "tried" },
          ]),
          tools: [noteTool(written)],
          permission: { mode: "bypass" },
        },
      ],
    });
    const main = new Agent({
      name: "main",
      model: new ScriptedModel([
        { toolCalls: [{ id: "s", name: "agent_spawn", input: { template: "writer", prompt: "write" } }] },
        { text: "ok" },
      ]),
      toolkit: spawner.tools,
      middlewares: [spawner.middleware],
      permission: { mode: "explore", deny: ["Bash"] },
    });
    await main.reply(userMsg("go"));
    const run = spawner.run(main.state.sessionId, "sub_1")!;
    expect(run.state.permission.mode).toBe("explore");
    expect(run.state.permission.rules).toContainEqual(
      expect.objectContaining({ toolName: "Bash", behavior: "deny" }),
    );
    expect(resultOf(run.state.context.at(-1)!, "n").state).toBe("denied");
    expect(written).toEqual([]);

    // Under a default parent, bypass narrows to default; the template's default mode is dont_ask.
    const other = agentSpawner({
      templates: [
        { name: "a", description: "a", model: child([{ text: "a" }]), permission: { mode: "bypass" } },
        { name: "b", description: "b", model: child([{ text: "b" }]) },
      ],
    });
    const host = parent(other, [
      {
        toolCalls: [
          { id: "1", name: "agent_spawn", input: { template: "a", prompt: "x" } },
          { id: "2", name: "agent_spawn", input: { template: "b", prompt: "x" } },
        ],
      },
      { text: "ok" },
    ]);
    await host.reply(userMsg("go"));
    expect(other.run(host.state.sessionId, "sub_1")!.state.permission.mode).toBe("default");
    expect(other.run(host.state.sessionId, "sub_2")!.state.permission.mode).toBe("dont_ask");
  });

  it("limits hold, and each refusal names its limit", async () => {
    const { hold } = gate();
    const templates = [
      { name: "quick", description: "quick", model: child([{ text: "1" }, { text: "2" }, { text: "3" }]) },
      {
        name: "slow",
        description: "slow",
        model: child([{ toolCalls: [{ name: "hold", input: {} }] }]),
        tools: [hold],
      },
    ];
    const spawn = (id: string, template: string, extra: Record<string, unknown> = {}) => ({
      id,
      name: "agent_spawn",
      input: { template, prompt: "x", ...extra },
    });

    const perReply = agentSpawner({ templates, limits: { maxPerReply: 1 } });
    const a = parent(perReply, [{ toolCalls: [spawn("1", "quick"), spawn("2", "quick")] }, { text: "ok" }]);
    const first = await a.reply(userMsg("go"));
    expect(resultOf(first, "1").state).toBe("success");
    expect(resultOf(first, "2").state).toBe("error");
    expect(String(resultOf(first, "2").output)).toContain('limit "maxPerReply" reached');

    const concurrent = agentSpawner({ templates, limits: { maxConcurrent: 1 } });
    const b = parent(concurrent, [
      { toolCalls: [spawn("1", "slow", { background: true })] },
      { toolCalls: [spawn("2", "quick")] },
      { text: "ok" },
    ]);
    const second = await b.reply(userMsg("go"));
    expect(String(resultOf(second, "2").output)).toContain('limit "maxConcurrent" reached');
    concurrent.cancelAll();

    const perSession = agentSpawner({ templates, limits: { maxPerSession: 1 } });
    const c = parent(perSession, [
      { toolCalls: [spawn("1", "quick")] },
      { toolCalls: [spawn("2", "quick")] },
      { text: "ok" },
    ]);
    const third = await c.reply(userMsg("go"));
    expect(String(resultOf(third, "2").output)).toContain('limit "maxPerSession" reached');

    const budget = agentSpawner({
      templates: [
        {
          name: "quick",
          description: "q",
          model: child([{ text: "1", usage: { inputTokens: 60, outputTokens: 50 } }]),
        },
      ],
      limits: { maxTokensPerSession: 100 },
    });
    const d = parent(budget, [
      { toolCalls: [spawn("1", "quick")] },
      { toolCalls: [spawn("2", "quick")] },
      { text: "ok" },
    ]);
    const fourth = await d.reply(userMsg("go"));
    expect(resultOf(fourth, "1").state).toBe("success");
    expect(String(resultOf(fourth, "2").output)).toContain(
      'limit "maxTokensPerSession" reached: the sub-agents of this session used 110 tokens',
    );
  });

  it("depth: a sub-agent may spawn only within maxDepth", async () => {
    const spawner: AgentSpawner = agentSpawner({
      templates: [
        {
          name: "nester",
          description: "spawns again",
          canSpawn: true,
          model: child([
            {
              toolCalls: [
                { id: "inner", name: "agent_spawn", input: { template: "nester", prompt: "deeper" } },
              ],
            },
            { text: "could not go deeper" },
          ]),
        },
      ],
      limits: { maxDepth: 1 },
    });
    const main = parent(spawner, [
      { toolCalls: [{ id: "s", name: "agent_spawn", input: { template: "nester", prompt: "go" } }] },
      { text: "ok" },
    ]);
    await main.reply(userMsg("go"));
    const inner = spawner.run(main.state.sessionId, "sub_1")!.state.context.at(-1)!;
    expect(resultOf(inner, "inner").state).toBe("error");
    expect(String(resultOf(inner, "inner").output)).toContain('limit "maxDepth" reached');
    expect(String(resultOf(inner, "inner").output)).toContain("at depth 1");
  });

  it("unknown templates, taken labels and expose_to_user are refused with what to do instead", async () => {
    const spawner = agentSpawner({
      templates: [{ name: "quick", description: "q", model: child([{ text: "1" }]) }],
    });
    const main = parent(spawner, [
      {
        toolCalls: [
          { id: "u", name: "agent_spawn", input: { template: "nope", prompt: "x" } },
          { id: "e", name: "agent_spawn", input: { template: "quick", prompt: "x", expose_to_user: true } },
          { id: "ok", name: "agent_spawn", input: { template: "quick", prompt: "x", label: "twin" } },
        ],
      },
      {
        toolCalls: [
          { id: "t", name: "agent_spawn", input: { template: "quick", prompt: "x", label: "twin" } },
        ],
      },
      { text: "ok" },
    ]);
    const reply = await main.reply(userMsg("go"));
    expect(String(resultOf(reply, "u").output)).toContain('no template "nope"; the templates are quick');
    expect(String(resultOf(reply, "e").output)).toContain("expose_to_user is not available here");
    expect(resultOf(reply, "ok").state).toBe("success");
    expect(String(resultOf(reply, "t").output)).toContain('the label "twin" is taken');
  });

  it("records are saved with the parent's session; a run that was in flight when its process ended is lost", async () => {
    const { hold } = gate();
    const templates = [
      {
        name: "slow",
        description: "slow",
        model: child([{ toolCalls: [{ name: "hold", input: {} }] }]),
        tools: [hold],
      },
    ];
    const before = agentSpawner({ templates });
    const main = parent(before, [
      {
        toolCalls: [
          { id: "s", name: "agent_spawn", input: { template: "slow", prompt: "x", background: true } },
        ],
      },
      { text: "ok" },
    ]);
    await main.reply(userMsg("go"));
    const saved = JSON.stringify(main.state);
    before.cancelAll();

    const after = agentSpawner({ templates });
    const restarted = parent(after, [
      { toolCalls: [{ id: "l", name: "agent_list", input: {} }] },
      { text: "ok" },
    ]);
    const state = parseAgentState(saved);
    const reply = await restarted.reply(userMsg("status?"), { state });
    expect(JSON.parse(String(resultOf(reply, "l").output)).subagents[0]).toMatchObject({
      id: "sub_1",
      status: "lost",
    });
    // The hint before the next step told the model too.
    expect(blocksOf(reply, "hint").map((h) => h.text)).toEqual([
      'Sub-agent sub_1 ("slow-1", template slow) was lost: the process that ran it ended before it finished.',
    ]);
  });

  it("a sub-agent assigned a task owns it while it runs; its outcome completes the task or blocks it", async () => {
    const spawner = agentSpawner({
      templates: [
        { name: "doer", description: "does it", model: child([{ text: "done it" }]) },
        {
          name: "failer",
          description: "fails",
          model: child([{ error: { type: "upstream", message: "the model is down" } }]),
        },
      ],
    });
    const settle = functionTool({
      name: "settle",
      description: "Waits for sub_2 to end",
      input: z.object({}),
      readOnly: true,
      pathsOf: () => [],
      execute: async (_input, ctx) => {
        await spawner.settled(ctx.sessionId, "sub_2");
        return "settled";
      },
    });
    const main = parent(
      spawner,
      [
        {
          toolCalls: [
            { id: "t1", name: "TaskCreate", input: { subject: "Do it" } },
            { id: "t2", name: "TaskCreate", input: { subject: "Try it" } },
            { id: "t3", name: "TaskCreate", input: { subject: "Later", dependencies: ["task_1"] } },
          ],
        },
        {
          toolCalls: [
            { id: "x", name: "agent_spawn", input: { template: "doer", prompt: "x", task_id: "task_3" } },
            { id: "u", name: "agent_spawn", input: { template: "doer", prompt: "x", task_id: "task_9" } },
          ],
        },
        {
          toolCalls: [
            { id: "a", name: "agent_spawn", input: { template: "doer", prompt: "x", task_id: "task_1" } },
          ],
        },
        {
          toolCalls: [
            {
              id: "b",
              name: "agent_spawn",
              input: { template: "failer", prompt: "x", task_id: "task_2", background: true },
            },
          ],
        },
        { toolCalls: [{ id: "s", name: "settle", input: {} }] },
        { text: "ok" },
      ],
      [...taskTools(), settle],
    );
    const events = await collect(main.replyStream(userMsg("go")));
    const stored = main.state.context.at(-1)!;
    expect(String(resultOf(stored, "x").output)).toContain("depends on tasks that are not completed: task_1");
    expect(String(resultOf(stored, "u").output)).toContain('no task "task_9"');
    expect(main.state.tasks.map((t) => [t.id, t.status, t.owner])).toEqual([
      ["task_1", "completed", "doer-1"],
      ["task_2", "blocked", "failer-2"],
      ["task_3", "pending", undefined],
    ]);
    const changes = events.filter(isTaskEvent).map((e) => [e.value.task.id, e.value.task.status]);
    expect(changes.slice(3)).toEqual([
      ["task_1", "in_progress"],
      ["task_1", "completed"],
      ["task_2", "in_progress"],
      ["task_2", "blocked"],
    ]);
    expect(events.reduce<readonly Task[]>(applyTaskEvent, [])).toEqual(main.state.tasks);
  });

  it("interrupting the parent while it waits cancels the sub-agent", async () => {
    const controller = new AbortController();
    const stuck = functionTool({
      name: "stuck",
      description: "interrupts the parent, then never ends",
      input: z.object({}),
      readOnly: true,
      pathsOf: () => [],
      execute: () => {
        controller.abort(new Error("the user pressed stop"));
        return new Promise<string>(() => {});
      },
    });
    const spawner = agentSpawner({
      templates: [
        {
          name: "slow",
          description: "slow",
          model: child([{ toolCalls: [{ name: "stuck", input: {} }] }]),
          tools: [stuck],
        },
      ],
    });
    const main = parent(spawner, [
      {
        toolCalls: [
          { id: "s", name: "agent_spawn", input: { template: "slow", prompt: "x", timeout_seconds: 600 } },
        ],
      },
    ]);
    const reply = await main.reply(userMsg("go"), { signal: controller.signal });
    expect(reply.finishedReason).toBe("interrupted");
    // The parent's reply does not wait for the call once interrupted; the sub-agent ends right after.
    await expect(spawner.settled(main.state.sessionId, "sub_1")).resolves.toMatchObject({
      status: "cancelled",
      error: "the parent's reply was interrupted",
    });
    expect(recordsOf(main)[0]).toMatchObject({ status: "cancelled" });
  });

  it("rejects bad spawner options, naming them", () => {
    expect(() => agentSpawner({ templates: [] })).toThrow(/templates must be a non-empty list/);
    expect(() => agentSpawner({ templates: [{ name: "a b", description: "x", model: child([]) }] })).toThrow(
      /templates\[0\]\.name/,
    );
    expect(() => agentSpawner({ templates: [{ name: "a", description: "x" }] })).toThrow(
      /needs an agent or a model/,
    );
    expect(() =>
      agentSpawner({
        templates: [{ name: "a", description: "x", model: child([]) }],
        limits: { maxDepth: 0 },
      }),
    ).toThrow(/limits\.maxDepth/);
    expect(() =>
      agentSpawner({
        templates: [{ name: "a", description: "x", model: child([]) }],
        limits: { defaultTimeoutSeconds: 601 },
      }),
    ).toThrow(/defaultTimeoutSeconds must be 0-600/);
  });
});
