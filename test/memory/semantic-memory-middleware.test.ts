import { SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import {
  type LongTermMemory,
  MEMORY_HINT_HEADER,
  SemanticMemory,
  semanticMemoryMiddleware,
} from "../../src/memory/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { extractTurn, knownIn } from "./helpers.js";

function setup(extractorTurns: ScriptedStep[], chatTurns: ScriptedStep[]) {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
    "t",
  );
  const extractor = new ScriptedModel(extractorTurns, { name: "extractor" });
  const memory = new SemanticMemory({
    model: extractor,
    embedding: new HashEmbedding(),
    store: new InMemoryVectorStore(),
  });
  const errors: unknown[] = [];
  const middleware = semanticMemoryMiddleware({
    memory,
    scope: { userId: "alice" },
    tracer,
    onError: (error) => errors.push(error),
  });
  const model = new ScriptedModel(chatTurns);
  const agent = new Agent({ name: "assistant", model, middlewares: [middleware] });
  return { agent, model, extractor, memory, middleware, exporter, errors };
}

const modelSaw = (model: ScriptedModel, call: number) =>
  model.calls[call]!.messages.map(
    (m) =>
      textOf(m) ||
      blocksOf(m, "hint")
        .map((b) => b.text)
        .join(""),
  ).join("\n");

describe("semanticMemoryMiddleware", () => {
  it("remembers a preference from one session and injects it as a hint in the next", async () => {
    const { agent, model, memory, middleware } = setup(
      [
        extractTurn([{ action: "add", kind: "preference", text: "Prefers answers in French" }]),
        extractTurn([]),
      ],
      [{ text: "D'accord." }, { text: "Bonjour ! Voici la recette." }],
    );
    await agent.reply(userMsg("Please always answer me in French."), { state: agent.createState("s1") });
    await middleware.flush();
    expect((await memory.list({ userId: "alice" })).map((m) => m.text)).toEqual([
      "Prefers answers in French",
    ]);

    const events: AgentEvent[] = [];
    const second = agent.createState("s2");
    for await (const event of agent.replyStream(userMsg("Give me a recipe for answers in any language"), {
      state: second,
    }))
      events.push(event);
    const hint = events.find((e) => e.type === "HINT_BLOCK");
    expect(hint).toMatchObject({ text: `${MEMORY_HINT_HEADER}\n- Prefers answers in French` });
    // The model saw the hint before answering in the new session (which shares no messages with the first).
    expect(modelSaw(model, 1)).toContain("Prefers answers in French");
    expect(modelSaw(model, 1)).not.toContain("Please always answer me in French");
    expect(events.findIndex((e) => e.type === "HINT_BLOCK")).toBeLessThan(
      events.findIndex((e) => e.type === "MODEL_CALL_START"),
    );
  });

  it("extracts only after the reply's stream has ended", async () => {
    let replyEnded = false;
    let extractionSawEnd: boolean | undefined;
    const { agent, middleware } = setup(
      [
        () => {
          extractionSawEnd = replyEnded;
          return extractTurn([]);
        },
      ],
      [{ text: "Hi." }],
    );
    for await (const event of agent.replyStream(userMsg("hello"))) {
      if (event.type === "REPLY_END") replyEnded = true;
    }
    expect(extractionSawEnd).toBeUndefined();
    await middleware.flush();
    expect(extractionSawEnd).toBe(true);
  });

  it("leaves the reply intact when extraction fails, and reports the failure", async () => {
    const { agent, middleware, errors, exporter } = setup(
      [{ error: { type: "upstream", message: "extractor is down" } }],
      [{ text: "Here is your answer." }],
    );
    const reply = await agent.reply(userMsg("remember that I like tea"));
    expect(reply.finishedReason).toBe("completed");
    expect(textOf(reply)).toBe("Here is your answer.");
    await middleware.flush();
    expect(middleware.usage.failures).toBe(1);
    expect(String(errors[0])).toContain("extractor is down");
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("leaves the reply intact when retrieval fails", async () => {
    const broken: LongTermMemory = {
      record: () => Promise.reject(new Error("store offline")),
      retrieve: () => Promise.reject(new Error("store offline")),
      list: async () => [],
      forget: async () => 0,
    };
    const errors: string[] = [];
    const middleware = semanticMemoryMiddleware({
      memory: broken,
      scope: { userId: "alice" },
      onError: (error, stage) => errors.push(`${stage}: ${(error as Error).message}`),
    });
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ text: "ok" }]),
      middlewares: [middleware],
    });
    const reply = await agent.reply(userMsg("hi"));
    await middleware.flush();
    expect(textOf(reply)).toBe("ok");
    expect(errors).toEqual(["retrieve: store offline", "record: store offline"]);
  });

  it("counts and traces the extraction's usage", async () => {
    const { agent, middleware, exporter } = setup(
      [extractTurn([{ action: "add", kind: "fact", text: "Works at Acme" }])],
      [{ text: "Nice." }],
    );
    await agent.reply(userMsg("I work at Acme."));
    await middleware.flush();
    expect(middleware.usage).toMatchObject({
      extractions: 1,
      inputTokens: 120,
      outputTokens: 30,
      added: 1,
      failures: 0,
    });
    expect(middleware.usage.embeddingTokens).toBeGreaterThan(0);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe("memory.record");
    expect(span?.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "agentscope.memory.added": 1,
    });
  });

  it("runs one user's extractions one after another, so two sessions ending together add no duplicate", async () => {
    const addUnlessKnown: ScriptedStep = (messages) =>
      knownIn(messages).size === 0
        ? extractTurn([{ action: "add", kind: "preference", text: "Likes tea" }])
        : extractTurn([]);
    const { agent, middleware, memory } = setup(
      [addUnlessKnown, addUnlessKnown],
      [{ text: "Sure." }, { text: "Sure." }],
    );
    await Promise.all([
      agent.reply(userMsg("I like tea."), { state: agent.createState("s1") }),
      agent.reply(userMsg("Tea is what I like."), { state: agent.createState("s2") }),
    ]);
    await middleware.flush();
    expect((await memory.list({ userId: "alice" })).map((m) => m.text)).toEqual(["Likes tea"]);
  });

  it("does not learn from a reply that did not complete", async () => {
    const { agent, middleware, extractor } = setup(
      [extractTurn([])],
      [{ error: { type: "upstream", message: "down" } }],
    );
    const reply = await agent.reply(userMsg("hi"));
    expect(reply.finishedReason).toBe("error");
    await middleware.flush();
    expect(extractor.calls).toHaveLength(0);
  });
});
