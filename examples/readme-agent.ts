// The README's first example, kept compiling by `npm run typecheck` and run by test/examples. It imports
// "agentscope" as an app does; in this repo that resolves to src/ (tsconfig "paths").
// Run: OPENAI_API_KEY=... npx tsx examples/readme-agent.ts

import { Agent, functionTool, userMsg } from "agentscope";
import { OpenAIChatModel } from "agentscope/model";
import { z } from "zod";

const weather = functionTool({
  name: "get_weather",
  description: "Current weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true, // read-only tools run without asking
  execute: async ({ city }) => `Sunny and 21°C in ${city}`,
});

const agent = new Agent({
  name: "helper",
  systemPrompt: "Be brief.",
  model: new OpenAIChatModel({ model: "gpt-4o-mini" }),
  toolkit: [weather],
});

for await (const event of agent.replyStream(userMsg("Weather in Paris?"))) {
  if (event.type === "TEXT_BLOCK_DELTA") process.stdout.write(event.delta);
  // A failed model call (bad key, server unreachable) ends the reply with an error, not an exception:
  if (event.type === "REPLY_END" && event.error)
    console.error(`\n${event.error.type}: ${event.error.message}`);
}
