// npm run demo: an agent with a read-only tool and a tool that asks first, streaming its events.

import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { Agent } from "agentscope/agent";
import { demoModel, demoTools, EventRenderer, prepareDemoWorkspace } from "agentscope/app";
import { type AgentEvent, type RequireUserConfirmEvent, userConfirmResult } from "agentscope/event";
import { userMsg } from "agentscope/message";
import { modelFromEnvironment } from "agentscope/model";

const workspace = join(tmpdir(), "agentscope-demo");
rmSync(workspace, { recursive: true, force: true });
prepareDemoWorkspace(workspace);
const configured = modelFromEnvironment();
const model = configured ?? demoModel();
process.stdout.write(
  configured
    ? `Using ${model.provider}:${model.name}.\n`
    : "No provider configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY, ... see README): using the scripted demo model.\n",
);
process.stdout.write(`Workspace: ${workspace}\n\n> Summarise my workspace and save the summary.\n`);

const agent = new Agent({
  name: "demo",
  systemPrompt: "You are a careful assistant working in a small file workspace.",
  model,
  toolkit: demoTools(workspace),
});
const renderer = new EventRenderer({ color: process.stdout.isTTY });
const ask = process.stdin.isTTY
  ? createInterface({ input: process.stdin, output: process.stdout })
  : undefined;

function noTerminal(): string {
  process.stdout.write("\n(no terminal: answering yes)\n");
  return "y";
}

async function play(stream: AsyncIterable<AgentEvent>): Promise<RequireUserConfirmEvent | undefined> {
  let pause: RequireUserConfirmEvent | undefined;
  for await (const event of stream) {
    process.stdout.write(renderer.render(event));
    if (event.type === "REQUIRE_USER_CONFIRM") pause = event;
  }
  return pause;
}

let pause = await play(agent.replyStream(userMsg("Summarise my workspace and save the summary.")));
while (pause) {
  const confirmResults = [];
  // End the rendered reason's line first: a terminal prompt redraws its own line and would erase it.
  process.stdout.write("\n");
  for (const call of pause.toolCalls) {
    const answer = ask ? await ask.question(`Allow ${call.name}? [y]es / [n]o / [a]lways: `) : noTerminal();
    const always = answer.trim().toLowerCase().startsWith("a");
    const confirmed = always || answer.trim().toLowerCase().startsWith("y");
    confirmResults.push({
      confirmed,
      toolCall: call,
      ...(always && call.suggestedRules ? { rules: call.suggestedRules } : {}),
    });
  }
  pause = await play(agent.replyStream(userConfirmResult({ replyId: pause.replyId, confirmResults })));
}
ask?.close();
const rules = agent.state.permission.rules.map((r) => r.toolName);
if (rules.length > 0) process.stdout.write(`Remembered rules: ${rules.join(", ")}\n`);
