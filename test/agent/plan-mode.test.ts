import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import {
  type AgentEvent,
  type CustomEvent,
  foldEvents,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import { blocksOf, userMsg } from "../../src/message/index.js";
import { narrowPermission } from "../../src/multiagent/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import {
  APPROVED_PLAN_KEY,
  functionTool,
  PERMISSION_MODE_CHANGED,
  planTool,
  taskTools,
} from "../../src/tool/index.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

function planner(steps: ScriptedStep[], written: string[]) {
  const writeNote = functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    pathsOf: () => [],
    execute: ({ text }) => {
      written.push(text);
      return `wrote ${text}`;
    },
  });
  const readNotes = functionTool({
    name: "read_notes",
    description: "Reads the notes",
    input: z.object({}),
    readOnly: true,
    pathsOf: () => [],
    execute: () => "no notes yet",
  });
  return new Agent({
    name: "main",
    model: new ScriptedModel(steps),
    toolkit: [writeNote, readNotes, ...taskTools(), planTool()],
    // The allow rule would let write_note run in any other mode: plan mode denies it all the same.
    permission: { mode: "plan", allow: ["write_note", "PlanPropose"] },
  });
}

const plan = "1. write the note 'hello'";
const research: ScriptedStep[] = [
  {
    toolCalls: [
      { id: "r", name: "read_notes", input: {} },
      { id: "t", name: "TaskCreate", input: { subject: "Write the note" } },
      { id: "w", name: "write_note", input: { text: "too early" } },
    ],
  },
  { toolCalls: [{ id: "p", name: "PlanPropose", input: { plan, mode: "accept_edits" } }] },
];

/** The result of call `id` in the reply these events fold into (a resumed stream: onto `paused`). */
const result = (events: AgentEvent[], id: string, paused?: AgentEvent[]) =>
  blocksOf(foldEvents(events, paused && foldEvents(paused))!, "tool_result").find((r) => r.id === id);

describe("plan mode", () => {
  it("refuses writes until the plan is approved; the approval switches to the mode the person picks", async () => {
    const written: string[] = [];
    const agent = planner(
      [
        ...research,
        { toolCalls: [{ id: "w2", name: "write_note", input: { text: "hello" } }] },
        { text: "Done." },
      ],
      written,
    );
    const first = await collect(agent.replyStream(userMsg("write a note")));

    // Read-only and task tools ran; the write was denied, though an allow rule names it.
    expect(result(first, "r")?.state).toBe("success");
    expect(result(first, "t")?.state).toBe("success");
    const denied = result(first, "w")!;
    expect(denied.state).toBe("denied");
    expect(String(denied.output)).toMatch(/plan mode only reads and plans.*PlanPropose/);
    expect(written).toEqual([]);

    // The proposal asks (its allow rule does not silence it) and the reply pauses, still in plan mode.
    const ask = first.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM")!;
    expect(ask.toolCalls.map((c) => c.name)).toEqual(["PlanPropose"]);
    expect(ask.toolCalls[0]!.reason).toMatch(/approving it leaves plan mode/);
    expect(first.some((e) => e.type === "REPLY_END")).toBe(false);
    expect(agent.state.permission.mode).toBe("plan");

    // The person approves, switching the proposed accept_edits to default by editing the call.
    const call = ask.toolCalls[0]!;
    const edited = { ...call, input: JSON.stringify({ plan, mode: "default" }) };
    const second = await collect(
      agent.replyStream(
        userConfirmResult({ replyId: ask.replyId, confirmResults: [{ confirmed: true, toolCall: edited }] }),
      ),
    );
    expect(second.find((e) => e.type === "USER_CONFIRM_RESULT")).toBeDefined();
    const change = second.find(
      (e): e is CustomEvent => e.type === "CUSTOM" && e.name === PERMISSION_MODE_CHANGED,
    );
    expect(change?.value).toEqual({ from: "plan", to: "default", toolCallId: "p", plan });
    expect(agent.state.permission.mode).toBe("default");
    expect(agent.state.toolContext[APPROVED_PLAN_KEY]).toMatchObject({ plan, mode: "default" });
    expect(String(result(second, "p", first)?.output)).toContain("now in default mode");

    // Now the same write runs (the allow rule counts again), and the reply ends.
    expect(result(second, "w2", first)?.state).toBe("success");
    expect(written).toEqual(["hello"]);
    expect(second.at(-1)?.type).toBe("REPLY_END");
    // The paused reply folded with the resumed stream is the stored reply.
    expect(foldEvents(second, foldEvents(first))).toEqual(agent.state.context.at(-1));
    expect(blocksOf(agent.state.context.at(-1)!, "tool_result").map((r) => [r.id, r.state])).toEqual([
      ["r", "success"],
      ["t", "success"],
      ["w", "denied"],
      ["p", "success"],
      ["w2", "success"],
    ]);
  });

  it("a refused plan keeps the session in plan mode and writes stay denied", async () => {
    const written: string[] = [];
    const agent = planner(
      [
        ...research,
        { toolCalls: [{ id: "w2", name: "write_note", input: { text: "anyway" } }] },
        { text: "I will plan again." },
      ],
      written,
    );
    const first = await collect(agent.replyStream(userMsg("write a note")));
    const ask = first.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM")!;
    const second = await collect(
      agent.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: false, toolCall: ask.toolCalls[0]!, reason: "add a test step" }],
        }),
      ),
    );
    expect(result(second, "p", first)?.state).toBe("denied");
    expect(String(result(second, "p", first)?.output)).toContain("add a test step");
    expect(result(second, "w2", first)?.state).toBe("denied");
    expect(written).toEqual([]);
    expect(agent.state.permission.mode).toBe("plan");
    expect(second.some((e) => e.type === "CUSTOM" && e.name === PERMISSION_MODE_CHANGED)).toBe(false);
  });

  it("a proposal may only pick a mode the tool offers (bypass is not offered by default)", async () => {
    const written: string[] = [];
    const agent = planner(
      [{ toolCalls: [{ id: "p", name: "PlanPropose", input: { plan, mode: "bypass" } }] }, { text: "ok" }],
      written,
    );
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(result(events, "p")?.state).toBe("error");
    expect(String(result(events, "p")?.output)).toMatch(/invalid arguments for PlanPropose: mode/);
    expect(agent.state.permission.mode).toBe("plan");
  });

  it("outside plan mode the proposal changes nothing and needs no approval", async () => {
    const agent = new Agent({
      name: "main",
      model: new ScriptedModel([
        { toolCalls: [{ id: "p", name: "PlanPropose", input: { plan } }] },
        { text: "ok" },
      ]),
      toolkit: [planTool()],
    });
    const events = await collect(agent.replyStream(userMsg("go")));
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(result(events, "p")?.state).toBe("error");
    expect(String(result(events, "p")?.output)).toContain("not in plan mode");
    expect(agent.state.permission.mode).toBe("default");
  });

  it("a sub-run never leaves plan mode on its own: plan on either side narrows to explore", () => {
    const base = { rules: [], workingDirectories: ["/w"] };
    expect(narrowPermission({ ...base, mode: "default" }, { ...base, mode: "plan" }).mode).toBe("explore");
    expect(narrowPermission({ ...base, mode: "plan" }, { ...base, mode: "default" }).mode).toBe("explore");
    expect(narrowPermission({ ...base, mode: "bypass" }, { ...base, mode: "plan" }).mode).toBe("explore");
  });

  it("rejects a plan tool configured with no modes or an unknown one", () => {
    expect(() => planTool({ modes: [] })).toThrow(/modes must be a non-empty list/);
    // @ts-expect-error: not a mode
    expect(() => planTool({ modes: ["yolo"] })).toThrow(/modes must be/);
  });
});
