import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { type Msg, textOf, userMsg } from "../../src/message/index.js";
import {
  InMemoryVectorStore,
  KnowledgeBase,
  ragMiddleware,
  SEARCH_KNOWLEDGE_TOOL,
} from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";

async function collect(stream: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function manualBase(): Promise<KnowledgeBase> {
  const kb = new KnowledgeBase({
    name: "manual",
    description: "the reactor operating manual",
    embedding: new HashEmbedding(),
    store: new InMemoryVectorStore(),
  });
  await kb.insertDocument({
    sections: [
      { source: "manual.pdf", page: 3, text: "The aurora reactor runs at forty kelvin." },
      { source: "manual.pdf", page: 7, text: "Tomatoes need six hours of sun." },
    ],
  });
  return kb;
}

/** All text the model was sent in one call. */
const sentText = (messages: Msg[]) =>
  messages
    .map((m) =>
      m.content.map((b) => ("text" in b ? b.text : "output" in b ? JSON.stringify(b.output) : "")).join(" "),
    )
    .join("\n");

describe("ragMiddleware", () => {
  it("agentic: the model searches with search_knowledge and gets cited excerpts back", async () => {
    const rag = ragMiddleware({ knowledgeBases: [await manualBase()], mode: "agentic", topK: 1 });
    expect(rag.tools.map((t) => [t.name, t.readOnly])).toEqual([[SEARCH_KNOWLEDGE_TOOL, true]]);
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: SEARCH_KNOWLEDGE_TOOL,
            input: { query: "aurora reactor temperature", knowledge_base: "manual" },
          },
        ],
      },
      { text: "It runs at forty kelvin [1]." },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: rag.tools, middlewares: [rag] });
    const events = await collect(agent.replyStream(userMsg("How cold is the reactor?")));
    const result = events.find((e) => e.type === "TOOL_RESULT_END");
    expect(result).toBeDefined();
    const second = sentText(model.calls[1]!.messages);
    expect(second).toContain("[1] (manual.pdf, page 3)");
    expect(second).toContain("forty kelvin");
    expect(second).not.toContain("Tomatoes");
    expect(model.calls[0]!.options.tools?.map((t) => t.name)).toEqual([SEARCH_KNOWLEDGE_TOOL]);
    expect(JSON.stringify(model.calls[0]!.options.tools?.[0]?.parameters)).toContain('"manual"');
    expect(JSON.stringify(model.calls[0])).toMatch(/Use the search_knowledge tool to look facts up/);
    expect(textOf(agent.state.context.at(-1)!)).toBe("It runs at forty kelvin [1].");
  });

  it("agentic: the tool rejects an unknown knowledge base name", async () => {
    const rag = ragMiddleware({ knowledgeBases: [await manualBase()] });
    expect(() => rag.tools[0]!.parse({ query: "x", knowledge_base: "other" })).toThrow();
  });

  it("static: retrieves before reasoning, shows a HINT_BLOCK, and removes it after the reply", async () => {
    const rag = ragMiddleware({
      knowledgeBases: [await manualBase()],
      mode: "static",
      topK: 1,
      searchMode: "vector",
      scoreThreshold: 0.2,
    });
    const model = new ScriptedModel([{ text: "Forty kelvin [1]." }, { text: "ok" }]);
    const agent = new Agent({ name: "a", model, middlewares: [rag] });
    const events = await collect(agent.replyStream(userMsg("How cold does the aurora reactor run?")));
    const hint = events.find((e) => e.type === "HINT_BLOCK");
    expect(hint?.type === "HINT_BLOCK" && hint.text).toContain(
      "[1] (manual.pdf, page 3)\nThe aurora reactor runs at forty kelvin.",
    );
    const first = sentText(model.calls[0]!.messages);
    expect(first).toContain("forty kelvin");
    expect(first).not.toContain("Tomatoes");
    // Gone from the context afterwards: the next call does not carry it.
    const blocks = agent.state.context.flatMap((m) => m.content.map((b) => b.type));
    expect(blocks).not.toContain("hint");
    const next = await collect(agent.replyStream(userMsg("thanks")));
    expect(next.some((e) => e.type === "HINT_BLOCK")).toBe(false); // nothing above the threshold
    expect(sentText(model.calls[1]!.messages)).not.toContain("[1] (manual.pdf");
  });

  it("static with persistHint keeps the hint in the context, with a custom template", async () => {
    const rag = ragMiddleware({
      knowledgeBases: [await manualBase()],
      mode: "static",
      topK: 1,
      persistHint: true,
      hintTemplate: "CONTEXT:\n{excerpts}",
    });
    const model = new ScriptedModel([{ text: "Forty kelvin." }]);
    const agent = new Agent({ name: "a", model, middlewares: [rag] });
    await collect(agent.replyStream(userMsg("aurora reactor")));
    const hints = agent.state.context.flatMap((m) => m.content).filter((b) => b.type === "hint");
    expect(hints).toHaveLength(1);
    expect(hints[0]?.type === "hint" && hints[0].text.startsWith("CONTEXT:\n[1] (manual.pdf, page 3)")).toBe(
      true,
    );
  });

  it("validates its options", async () => {
    const kb = await manualBase();
    expect(() => ragMiddleware({ knowledgeBases: [] })).toThrow(/at least one/);
    expect(() => ragMiddleware({ knowledgeBases: [kb, kb] })).toThrow(/unique/);
    expect(() => ragMiddleware({ knowledgeBases: [kb], mode: "static", hintTemplate: "no slot" })).toThrow(
      /\{excerpts\}/,
    );
  });
});
