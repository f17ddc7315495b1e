// Talks to an `agentscope serve` through its OpenAI-compatible endpoint with the official `openai`
// client: the agents are the models; the agent's own tools run on the service.
// Run: npx agentscope serve   (in another shell), then
//      AGENTSCOPE_URL=http://127.0.0.1:8787 AGENTSCOPE_TOKEN=<token or anything without auth> npx tsx examples/bridge-openai-client.ts

import OpenAI from "openai";

const base = process.env.AGENTSCOPE_URL ?? "http://127.0.0.1:8787";
const client = new OpenAI({ baseURL: `${base}/v1/openai`, apiKey: process.env.AGENTSCOPE_TOKEN ?? "local" });

const models = await client.models.list();
const model = models.data[0]?.id;
if (!model) throw new Error("the service offers no agent");
console.log(`agents: ${models.data.map((m) => m.id).join(", ")}; asking ${model}`);

// Streamed: text arrives as it is written; usage comes in the last chunk.
const stream = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "Say hello in five words." }],
  stream: true,
  stream_options: { include_usage: true },
});
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta.content ?? "");
  if (chunk.usage) console.log(`\n(${chunk.usage.total_tokens} tokens)`);
}

// Not streamed, continuing a session: the header names it; the agent keeps the history.
const { data, response } = await client.chat.completions
  .create({ model, messages: [{ role: "user", content: "And now in French?" }] })
  .withResponse();
const sessionId = response.headers.get("x-agentscope-session-id");
console.log(data.choices[0]?.message.content);
const again = await client.chat.completions.create(
  { model, messages: [{ role: "user", content: "Shorter, please." }] },
  { headers: { "x-agentscope-session-id": sessionId ?? "" } },
);
console.log(again.choices[0]?.message.content);

// A reply that waits for an approval says what waits; the ids are in the `agentscope` field.
const pending = (again as unknown as { agentscope?: { pending?: Array<{ tool_call_id: string }> } })
  .agentscope?.pending;
if (pending?.length) console.log(`waiting for: ${pending.map((p) => p.tool_call_id).join(", ")}`);
