/**
 * Retrieval, offline: index a small document set, then an agent answers from it with citations.
 * Run: npx tsx examples/rag.ts
 *
 * The documents (Markdown, CSV, HTML under examples/rag-docs/) are read, chunked, embedded with the
 * deterministic HashEmbedding and kept in an in-memory store; hybrid search finds both meanings and
 * exact codes. The chat model is a ScriptedModel that calls `search_knowledge` and answers from what
 * it got back, so no network is needed; swap in a real model and embedding for the real thing.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { Agent } from "agentscope/agent";
import { type Msg, textOf, userMsg } from "agentscope/message";
import {
  citationOf,
  InMemoryVectorStore,
  KnowledgeBase,
  ragMiddleware,
  SEARCH_KNOWLEDGE_TOOL,
} from "agentscope/rag";
import { HashEmbedding, ScriptedModel } from "agentscope/testing";

const docs = join(import.meta.dirname, "rag-docs");
const kb = new KnowledgeBase({
  name: "operations",
  description: "reactor manual, error codes and who to call",
  embedding: new HashEmbedding(),
  store: new InMemoryVectorStore(),
});
for (const file of (await readdir(docs)).sort()) {
  const { chunks } = await kb.insertDocument(join(docs, file), { documentId: file });
  console.log(`indexed ${file}: ${chunks} chunks`);
}

const question = "The panel shows ZX-81. What does it mean and what should I do?";
console.log(`\nsearch: ${question}`);
for (const hit of await kb.search(question, { topK: 3 })) {
  console.log(`  ${hit.score.toFixed(4)}  ${citationOf({ ...hit.chunk, source: hit.chunk.documentId })}`);
}

/** What a real model does with the tool result: answer from the first excerpt, citing it. */
const answerFromExcerpts = (messages: Msg[]) => {
  const last = messages.at(-1)?.content.find((block) => block.type === "tool_result");
  const output = last?.type === "tool_result" && typeof last.output === "string" ? last.output : "";
  const first = output.split("\n")[1] ?? "";
  return { text: `${first} [1]` };
};
const model = new ScriptedModel([
  { toolCalls: [{ name: SEARCH_KNOWLEDGE_TOOL, input: { query: "ZX-81 error code meaning action" } }] },
  answerFromExcerpts,
]);
const rag = ragMiddleware({ knowledgeBases: [kb], topK: 2 });
const agent = new Agent({ name: "operator", model, toolkit: rag.tools, middlewares: [rag] });
for await (const event of agent.replyStream(userMsg(question))) {
  if (event.type === "TOOL_RESULT_END") console.log("\n(search_knowledge returned excerpts)");
}
console.log(`\nanswer: ${textOf(agent.state.context.at(-1) as Msg)}`);
