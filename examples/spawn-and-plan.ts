// Plan mode, tasks and spawned sub-agents, offline on scripted models:
//   npx tsx examples/spawn-and-plan.ts
// The agent starts in plan mode: it keeps a task list, its write is refused, it proposes a plan,
// the plan is approved (here, by this script) and the agent continues in default mode; it spawns an
// explorer it waits for, and a slow sub-agent in the background whose result arrives as a hint.

import { Agent } from "agentscope/agent";
import {
  type AgentEvent,
  applyTaskEvent,
  type RequireUserConfirmEvent,
  type Task,
  userConfirmResult,
} from "agentscope/event";
import { userMsg } from "agentscope/message";
import { agentSpawner } from "agentscope/multiagent";
import { ScriptedModel } from "agentscope/testing";
import { functionTool, planTool, taskTools } from "agentscope/tool";
import { z } from "zod";

const notes: string[] = [];
const saveNote = functionTool({
  name: "save_note",
  description: "Saves a note",
  input: z.object({ text: z.string() }),
  pathsOf: () => [],
  execute: ({ text }) => {
    notes.push(text);
    return `saved: ${text}`;
  },
});

const spawner = agentSpawner({
  templates: [
    {
      name: "explorer",
      description: "Reads and reports",
      model: new ScriptedModel([{ text: "The project has 3 modules: api, core, ui." }]),
      permission: { mode: "explore" },
    },
    {
      name: "summariser",
      description: "Writes a summary (slowly)",
      model: new ScriptedModel([{ text: "Summary: a small, tidy project.", delayMs: 20 }]),
    },
  ],
});

const plan = "1. explore the project\n2. save a note with what it holds";
const agent = new Agent({
  name: "main",
  model: new ScriptedModel([
    {
      toolCalls: [
        { name: "TaskCreate", input: { subject: "Explore the project" } },
        { name: "TaskCreate", input: { subject: "Save a note", dependencies: ["task_1"] } },
        { name: "save_note", input: { text: "too early" } },
      ],
    },
    { toolCalls: [{ name: "PlanPropose", input: { plan } }] },
    {
      toolCalls: [
        { name: "agent_spawn", input: { template: "explorer", prompt: "What does the project hold?" } },
      ],
    },
    {
      toolCalls: [
        { name: "TaskUpdate", input: { id: "task_1", status: "completed" } },
        { name: "save_note", input: { text: "3 modules: api, core, ui" } },
        { name: "TaskUpdate", input: { id: "task_2", status: "completed" } },
        { name: "agent_spawn", input: { template: "summariser", prompt: "Summarise it", background: true } },
      ],
    },
    { text: "Noted; a summary is on its way." },
    { text: "The summariser says: a small, tidy project." },
  ]),
  toolkit: [saveNote, ...taskTools(), planTool(), ...spawner.tools],
  middlewares: [spawner.middleware],
  permission: { mode: "plan", allow: ["save_note"] },
});

let tasks: readonly Task[] = [];
function show(event: AgentEvent): void {
  tasks = applyTaskEvent(tasks, event);
  const who = event.source ? `  [${event.source}] ` : "";
  if (event.type === "TOOL_CALL_START" && !event.source) process.stdout.write(`→ ${event.toolCallName}\n`);
  if (event.type === "TOOL_RESULT_END" && event.state !== "success" && !event.source)
    process.stdout.write(`  ${event.state}\n`);
  if (event.type === "REQUIRE_USER_CONFIRM")
    process.stdout.write(`? ${event.toolCalls[0]!.name} asks for approval\n`);
  if (event.type === "CUSTOM" && event.name === "permission_mode_changed")
    process.stdout.write(`mode: ${JSON.stringify(event.value)}\n`);
  if (event.type === "HINT_BLOCK") process.stdout.write(`hint: ${event.text}\n`);
  if (event.type === "SUBAGENT_EXPOSED") process.stdout.write(`${who}started inside ${event.toolCallId}\n`);
  if (event.type === "REPLY_END") process.stdout.write(`${who}reply ${event.finishedReason}\n`);
}

let ask: RequireUserConfirmEvent | undefined;
for await (const event of agent.replyStream(userMsg("Look at the project and note what it holds."))) {
  show(event);
  if (event.type === "REQUIRE_USER_CONFIRM") ask = event;
}
if (!ask) throw new Error("the plan was never proposed");
process.stdout.write(`approving the plan:\n${plan}\n`);
const approval = userConfirmResult({
  replyId: ask.replyId,
  confirmResults: [
    { confirmed: true, toolCall: { ...ask.toolCalls[0]!, input: JSON.stringify({ plan, mode: "default" }) } },
  ],
});
for await (const event of agent.replyStream(approval)) show(event);

await spawner.settled(agent.state.sessionId, "sub_2");
for await (const event of agent.replyStream(userMsg("Anything from the summariser?"))) show(event);

process.stdout.write(`notes: ${JSON.stringify(notes)}\n`);
process.stdout.write(`tasks: ${tasks.map((t) => `${t.id} ${t.status}`).join(", ")}\n`);
