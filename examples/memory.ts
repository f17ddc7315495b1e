/**
 * Long-term memory, offline: a preference stated in one session is used in the next.
 * Run: npx tsx examples/memory.ts
 *
 * Two sessions of one agent share nothing but the user's memory. After the first reply the
 * semantic memory middleware extracts "Prefers answers in French" (in the background, once the reply
 * has ended); before the second reply, which asks for a recipe without a word about language, it
 * hands it to the model as a hint (preferences are always injected, not only when the words match).
 * The chat and extraction models are ScriptedModels and the embeddings are hashed, so no network is
 * needed; swap in real models (e.g. `modelFromSpec("openai:gpt-4o-mini")`) for the real thing.
 */
import { Agent } from "agentscope/agent";
import { SAVE_MEMORIES_TOOL, SemanticMemory, semanticMemoryMiddleware } from "agentscope/memory";
import { blocksOf, type Msg, textOf, userMsg } from "agentscope/message";
import { InMemoryVectorStore } from "agentscope/rag";
import { HashEmbedding, ScriptedModel } from "agentscope/testing";

/** The chat model: answers in French when a remembered preference says so (what a real model does with the hint). */
const answer = (messages: Msg[]) => {
  const hints = messages.flatMap((m) => blocksOf(m, "hint").map((b) => b.text)).join("\n");
  return hints.includes("French")
    ? { text: "Voici une recette simple : une omelette aux fines herbes." }
    : { text: "Understood, I will remember that." };
};

/** The extractor: what a real model returns when asked for durable facts and preferences. */
const extractor = new ScriptedModel([
  {
    toolCalls: [
      {
        name: SAVE_MEMORIES_TOOL,
        input: { operations: [{ action: "add", kind: "preference", text: "Prefers answers in French" }] },
      },
    ],
  },
  { toolCalls: [{ name: SAVE_MEMORIES_TOOL, input: { operations: [] } }] },
]);

const memory = new SemanticMemory({
  model: extractor,
  embedding: new HashEmbedding(),
  store: new InMemoryVectorStore(),
});
const remember = semanticMemoryMiddleware({ memory, scope: { userId: "alice" } });
const agent = new Agent({
  name: "assistant",
  systemPrompt: "You are a helpful assistant.",
  model: new ScriptedModel([answer, answer]),
  middlewares: [remember],
});

const first = await agent.reply(userMsg("Please answer in French from now on."), {
  state: agent.createState("monday"),
});
console.log(`session 1 › ${textOf(first)}`);
await remember.flush(); // the extraction runs after the reply; wait for it before the demo goes on

console.log(`remembered: ${(await memory.list({ userId: "alice" })).map((m) => m.text).join("; ")}`);

const second = agent.createState("tuesday");
// The question shares no word with the preference: preferences are injected whatever the wording
// (the middleware's always-on profile), so the hashed embedding's word matching does not matter here.
for await (const event of agent.replyStream(userMsg("Suggest a quick dinner recipe."), { state: second })) {
  if (event.type === "HINT_BLOCK")
    console.log(`session 2 hint › ${event.text.split("\n").slice(1).join(" ")}`);
}
console.log(`session 2 › ${textOf(second.context.at(-1)!)}`);
await remember.flush();
console.log(`extraction usage: ${JSON.stringify(remember.usage)}`);
