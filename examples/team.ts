// A team: a leader assigns work to a researcher and a writer (in parallel), then a goal loop checks
// the result. Offline on the scripted model; on a real provider when one is configured
// (OPENAI_API_KEY, ANTHROPIC_API_KEY, ... see README).
//   npx tsx examples/team.ts

import { Agent, STRUCTURED_OUTPUT_TOOL } from "agentscope/agent";
import type { AgentEvent } from "agentscope/event";
import { textOf, userMsg } from "agentscope/message";
import { type ChatModel, modelFromEnvironment } from "agentscope/model";
import { GoalPipeline, TeamPipeline } from "agentscope/multiagent";
import { ScriptedModel, type ScriptedStep } from "agentscope/testing";

const configured = modelFromEnvironment();
const model = (script: ScriptedStep[]): ChatModel => configured ?? new ScriptedModel(script);
process.stdout.write(
  configured
    ? `Using ${configured.provider}:${configured.name}.\n`
    : "No provider configured: using scripted models.\n",
);

const researcher = new Agent({
  name: "researcher",
  systemPrompt: "You find facts. Answer in two sentences.",
  model: model([{ text: "Pugs come from China, where they were bred as companions for emperors." }]),
});
const writer = new Agent({
  name: "writer",
  systemPrompt: "You write one catchy headline.",
  model: model([{ text: "Small Dog, Imperial Past: Meet the Pug" }]),
});
const team = new TeamPipeline({
  leader: new Agent({
    name: "lead",
    systemPrompt: "You lead a team. Use team_assign to delegate, then combine the answers.",
    model: model([
      {
        toolCalls: [
          { name: "team_assign", input: { member: "researcher", prompt: "Where do pugs come from?" } },
          { name: "team_assign", input: { member: "writer", prompt: "A headline about pugs." } },
        ],
      },
      { text: "Headline: Small Dog, Imperial Past: Meet the Pug. Pugs come from China." },
    ]),
  }),
  members: [
    { agent: researcher, description: "finds facts" },
    { agent: writer, description: "writes headlines" },
  ],
});

/** Prints each event on one line, indented by how deep its source is. */
function show(event: AgentEvent): void {
  const depth = event.source ? event.source.split("/").length - 1 : 0;
  const who = event.source ?? "(top)";
  if (event.type === "SUBAGENT_EXPOSED")
    process.stdout.write(`${"  ".repeat(depth)}${who} starts inside call ${event.toolCallId}\n`);
  if (event.type === "TEXT_BLOCK_END") process.stdout.write(`${"  ".repeat(depth)}${who}: (text done)\n`);
  if (event.type === "REPLY_END")
    process.stdout.write(`${"  ".repeat(depth)}${who}: ${event.finishedReason}\n`);
}

process.stdout.write("\n> Tell me about pugs.\n");
for await (const event of team.replyStream(userMsg("Tell me about pugs."))) show(event);
process.stdout.write(`\nTeam: ${textOf(team.state.context.at(-1)!)}\n`);

const goal = new GoalPipeline({
  executor: new Agent({
    name: "executor",
    model: model([
      { toolCalls: [{ name: STRUCTURED_OUTPUT_TOOL, input: { report: "Pug facts" } }] },
      {
        toolCalls: [
          { name: STRUCTURED_OUTPUT_TOOL, input: { report: "Pugs: from China, bred for emperors." } },
        ],
      },
    ]),
  }),
  verifier: new Agent({
    name: "verifier",
    model: model([
      {
        toolCalls: [
          { name: STRUCTURED_OUTPUT_TOOL, input: { result: "fail", message: "Say where pugs come from." } },
        ],
      },
      { toolCalls: [{ name: STRUCTURED_OUTPUT_TOOL, input: { result: "pass", message: "Good." } }] },
    ]),
  }),
  goal: "One line of facts about pugs that says where they come from.",
  maxIters: 3,
});
process.stdout.write("\n> Goal: one line of pug facts.\n");
for await (const event of goal.replyStream(userMsg("Go."))) show(event);
process.stdout.write(`\nGoal: ${JSON.stringify(goal.state.context.at(-1)!.structuredOutput)}\n`);
